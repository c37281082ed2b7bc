// Memory, copies, sets, pools, and the module/kernel path.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness/driver/device_work.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

TEST(Memory, CopiesAndSetsRoundTrip) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUdeviceptr a = 0;
  CUdeviceptr b = 0;
  ASSERT_CU(d.cuMemAlloc(&a, 4096));
  ASSERT_CU(d.cuMemAlloc(&b, 4096));
  std::vector<unsigned char> source(4096);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7);
  std::vector<unsigned char> back(4096, 0);
  EXPECT_CU(d.cuMemcpyHtoD(a, source.data(), source.size()));
  EXPECT_CU(d.cuMemcpyDtoD(b, a, source.size()));
  EXPECT_CU(d.cuMemcpyDtoH(back.data(), b, back.size()));
  EXPECT_EQ(source, back);

  EXPECT_CU(d.cuMemsetD8(a, 0x5a, 4096));
  EXPECT_CU(d.cuMemsetD32Async(b, 0x01020304u, 1024, stream.get()));
  void* pinned = nullptr;
  ASSERT_CU(d.cuMemAllocHost(&pinned, 4096));
  EXPECT_CU(d.cuMemcpyDtoHAsync(pinned, b, 4096, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  std::uint32_t word = 0;
  std::memcpy(&word, static_cast<unsigned char*>(pinned) + 4092, 4);
  EXPECT_EQ(0x01020304u, word);
  EXPECT_CU(d.cuMemcpyDtoH(back.data(), a, 4096));
  EXPECT_EQ(std::vector<unsigned char>(4096, 0x5a), back);

  EXPECT_CU(d.cuMemFreeHost(pinned));
  EXPECT_CU(d.cuMemFree(a));
  EXPECT_CU(d.cuMemFree(b));
}

TEST(Memory, AsyncCopyFromPageableMemoryMayReuseTheBufferAtOnce) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUdeviceptr target = 0;
  ASSERT_CU(d.cuMemAlloc(&target, 64));
  Gate gate;
  ASSERT_CU(gate.launch(stream.get()));  // the copy cannot run before the gate opens
  std::vector<unsigned char> buffer(64, 1);
  ASSERT_CU(d.cuMemcpyHtoDAsync(target, buffer.data(), buffer.size(), stream.get()));
  std::fill(buffer.begin(), buffer.end(), 2);
  gate.open();
  std::vector<unsigned char> back(64, 0);
  EXPECT_CU(d.cuMemcpyDtoHAsync(back.data(), target, back.size(), stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(std::vector<unsigned char>(64, 1), back);
  EXPECT_CU(d.cuMemFree(target));
}

TEST(Memory, RejectsPointersItDidNotAllocate) {
  SIM_ONLY();  // a real driver checks against its own, coarser, allocation granularity
  PrimaryContext context;
  const DriverTable& d = driver();
  std::vector<unsigned char> host(64);
  CUdeviceptr device = 0;
  ASSERT_CU(d.cuMemAlloc(&device, 64));
  EXPECT_NE(CUDA_SUCCESS, d.cuMemcpyHtoD(device + 32, host.data(), 64)) << "runs past the allocation";
  EXPECT_NE(CUDA_SUCCESS, d.cuMemFree(device + 8));
  EXPECT_CU(d.cuMemFree(device));
}

TEST(Memory, RegistersHostMemoryOnce) {
  PrimaryContext context;
  const DriverTable& d = driver();
  void* buffer = std::aligned_alloc(4096, 8192);
  ASSERT_NE(nullptr, buffer);
  EXPECT_CU(d.cuMemHostRegister(buffer, 8192, 0));
  EXPECT_CU_RESULT(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, d.cuMemHostRegister(buffer, 8192, 0));
  EXPECT_CU(d.cuMemHostUnregister(buffer));
  EXPECT_CU_RESULT(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, d.cuMemHostUnregister(buffer));
  std::free(buffer);
}

TEST(Memory, ManagedAndPoolAllocationsWork) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUdeviceptr managed = 0;
  ASSERT_CU(d.cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
  EXPECT_CU(d.cuMemsetD32(managed, 3, 1024));
  EXPECT_CU(d.cuCtxSynchronize());
  EXPECT_EQ(3u, *reinterpret_cast<std::uint32_t*>(static_cast<std::uintptr_t>(managed)));
  EXPECT_CU(d.cuMemFree(managed));

  CUmemoryPool pool = nullptr;
  ASSERT_CU(d.cuDeviceGetDefaultMemPool(&pool, 0));
  CUdeviceptr first = 0;
  CUdeviceptr second = 0;
  ASSERT_CU(d.cuMemAllocAsync(&first, 1 << 20, stream.get()));
  ASSERT_CU(d.cuMemAllocFromPoolAsync(&second, 1 << 20, pool, stream.get()));
  EXPECT_CU(d.cuMemsetD8Async(first, 1, 1 << 20, stream.get()));
  EXPECT_CU(d.cuMemFreeAsync(first, stream.get()));
  EXPECT_CU(d.cuMemFreeAsync(second, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuMemPoolTrimTo(pool, 0));
}

TEST(Memory, InfoAccountsForAllocations) {
  SIM_ONLY();  // on a real GPU other processes allocate too
  PrimaryContext context;
  const DriverTable& d = driver();
  size_t free_before = 0;
  size_t total = 0;
  ASSERT_CU(d.cuMemGetInfo(&free_before, &total));
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAlloc(&block, 1 << 20));
  size_t free_after = 0;
  ASSERT_CU(d.cuMemGetInfo(&free_after, &total));
  EXPECT_EQ(free_before - (1 << 20), free_after);
  EXPECT_CU(d.cuMemFree(block));
}

TEST(Modules, LoadTheTestKernelsAndRefuseUnknownNames) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUmodule module = nullptr;
  ASSERT_CU(d.cuModuleLoadData(&module, test_kernels_ptx()));
  CUfunction spin = nullptr;
  EXPECT_CU(d.cuModuleGetFunction(&spin, module, "gilsan_spin_ns"));
  CUfunction missing = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_FOUND, d.cuModuleGetFunction(&missing, module, "no_such_kernel"));
  unsigned long long nanoseconds = 1000;
  void* params[] = {&nanoseconds};
  EXPECT_CU(d.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream.get(), params, nullptr));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuModuleUnload(module));
}

TEST(Modules, LibraryKernelsLaunchInTheCurrentContext) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUlibrary library = nullptr;
  ASSERT_CU(d.cuLibraryLoadData(&library, test_kernels_ptx(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  ASSERT_CU(d.cuLibraryGetKernel(&kernel, library, "gilsan_fill_u32"));
  CUfunction function = nullptr;
  ASSERT_CU(d.cuKernelGetFunction(&function, kernel));
  CUdeviceptr words = 0;
  ASSERT_CU(d.cuMemAlloc(&words, 16 * sizeof(std::uint32_t)));
  unsigned int value = 0xfeed;
  unsigned long long count = 16;
  void* params[] = {&words, &value, &count};
  EXPECT_CU(d.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream.get(), params, nullptr));
  std::uint32_t back[16] = {};
  EXPECT_CU(d.cuMemcpyDtoHAsync(back, words, sizeof back, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(0xfeedu, back[0]);
  EXPECT_EQ(0xfeedu, back[15]);
  EXPECT_CU(d.cuMemFree(words));
  EXPECT_CU(d.cuLibraryUnload(library));
}

TEST(Modules, ALaunchWithAConfigurationRunsTheKernelInStreamOrder) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUlibrary library = nullptr;
  ASSERT_CU(d.cuLibraryLoadData(&library, test_kernels_ptx(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  ASSERT_CU(d.cuLibraryGetKernel(&kernel, library, "gilsan_fill_u32"));
  CUdeviceptr words = 0;
  ASSERT_CU(d.cuMemAlloc(&words, 16 * sizeof(std::uint32_t)));
  unsigned int value = 0xbeef;
  unsigned long long count = 16;
  void* params[] = {&words, &value, &count};
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream.get();
  // The CUkernel stands for a function of the current context, as with cuLaunchKernel.
  EXPECT_CU(d.cuLaunchKernelEx(&config, reinterpret_cast<CUfunction>(kernel), params, nullptr));
  std::uint32_t back[16] = {};
  EXPECT_CU(d.cuMemcpyDtoHAsync(back, words, sizeof back, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(0xbeefu, back[0]);
  EXPECT_EQ(0xbeefu, back[15]);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuLaunchKernelEx(nullptr, reinterpret_cast<CUfunction>(kernel), params,
                                                                nullptr));
  EXPECT_CU(d.cuMemFree(words));
  EXPECT_CU(d.cuLibraryUnload(library));
}

TEST(Modules, DeviceWorkKeepsTheStreamBusy) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(launch_device_work(d, stream.get(), std::chrono::milliseconds(1000)));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuStreamQuery(stream.get()));
}

}  // namespace
}  // namespace gilsan::test
