// Stream-ordered pools, pointer attributes and memset nodes: what cuda.core's Device.allocate and
// GraphDefinition.memset rely on. Each assertion is the driver's documented behaviour, so the same tests
// run on the real driver (gilsan_sim_tests --driver real).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

CUmemoryPool new_device_pool() {
  const CUmemPoolProps props = pinned_device_pool_properties(0);
  CUmemoryPool pool = nullptr;
  EXPECT_CU(driver().cuMemPoolCreate(&pool, &props));
  return pool;
}

cuuint64_t attribute(CUmemoryPool pool, CUmemPool_attribute which) {
  cuuint64_t value = 0;
  EXPECT_CU(driver().cuMemPoolGetAttribute(pool, which, &value));
  return value;
}

TEST(MemPools, TheCurrentPoolServesAsyncAllocationsAndFallsBackWhenDestroyed) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUmemoryPool default_pool = nullptr;
  CUmemoryPool current = nullptr;
  ASSERT_CU(d.cuDeviceGetDefaultMemPool(&default_pool, 0));
  ASSERT_CU(d.cuDeviceGetMemPool(&current, 0));
  EXPECT_EQ(default_pool, current);

  CUmemoryPool mine = new_device_pool();
  ASSERT_NE(nullptr, mine);
  ASSERT_CU(d.cuDeviceSetMemPool(0, mine));
  ASSERT_CU(d.cuDeviceGetMemPool(&current, 0));
  EXPECT_EQ(mine, current);
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAllocAsync(&block, 4096, stream.get()));
  CUmemoryPool owner = nullptr;
  EXPECT_CU(d.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, block));
  EXPECT_EQ(mine, owner);
  EXPECT_GE(attribute(mine, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 4096u);
  EXPECT_GE(attribute(mine, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 4096u);
  EXPECT_CU(d.cuMemFreeAsync(block, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(0u, attribute(mine, CU_MEMPOOL_ATTR_USED_MEM_CURRENT));

  // Destroying the device's current pool makes its default pool current again.
  EXPECT_CU(d.cuMemPoolDestroy(mine));
  ASSERT_CU(d.cuDeviceGetMemPool(&current, 0));
  EXPECT_EQ(default_pool, current);
}

// Freed blocks stay with the pool up to its release threshold, and what is above it goes back at a
// synchronize.
TEST(MemPools, ASynchronizeReleasesWhatIsAboveTheThreshold) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUmemoryPool pool = new_device_pool();
  cuuint64_t keep_all = ~cuuint64_t{0};
  ASSERT_CU(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all));
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAllocFromPoolAsync(&block, 1 << 20, pool, stream.get()));
  ASSERT_CU(d.cuMemFreeAsync(block, stream.get()));
  ASSERT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_GE(attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), cuuint64_t{1} << 20);

  cuuint64_t keep_none = 0;
  ASSERT_CU(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_none));
  ASSERT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(0u, attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
  EXPECT_CU(d.cuMemPoolDestroy(pool));
}

// cuMemPoolDestroy with a block outstanding: the block stays usable, and the device gets its memory back
// once the block is freed (the driver releases a destroyed pool's memory when nothing of it is left).
TEST(MemPools, ADestroyedPoolsMemoryComesBackWhenItsLastBlockIsFreed) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  constexpr std::size_t kBlock = std::size_t{256} << 20;
  constexpr std::size_t kSlack = std::size_t{64} << 20;  // the real driver's own allocations come and go
  std::size_t free_before = 0;
  std::size_t free_during = 0;
  std::size_t free_after = 0;
  std::size_t total = 0;
  ASSERT_CU(d.cuMemGetInfo(&free_before, &total));
  CUmemoryPool pool = new_device_pool();
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAllocFromPoolAsync(&block, kBlock, pool, stream.get()));
  ASSERT_CU(d.cuMemsetD8Async(block, 1, kBlock, stream.get()));
  ASSERT_CU(d.cuStreamSynchronize(stream.get()));
  ASSERT_CU(d.cuMemPoolDestroy(pool));
  ASSERT_CU(d.cuMemGetInfo(&free_during, &total));
  EXPECT_LE(free_during + kBlock, free_before + kSlack);
  ASSERT_CU(d.cuMemFreeAsync(block, stream.get()));
  ASSERT_CU(d.cuStreamSynchronize(stream.get()));
  ASSERT_CU(d.cuMemGetInfo(&free_after, &total));
  EXPECT_GE(free_after + kSlack, free_before);
}

TEST(MemPools, AttributesAreSetAndReadBack) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUmemoryPool pool = new_device_pool();
  cuuint64_t threshold = 1 << 20;
  EXPECT_CU(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
  EXPECT_EQ(cuuint64_t{1} << 20, attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD));
  int opportunistic = 0;
  EXPECT_CU(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &opportunistic));
  int back = 1;
  EXPECT_CU(d.cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &back));
  EXPECT_EQ(0, back);
  // A high-water mark can only be reset, by setting 0.
  cuuint64_t not_zero = 5;
  EXPECT_EQ("CUDA_ERROR_INVALID_VALUE", result_name(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &not_zero)));
  cuuint64_t zero = 0;
  EXPECT_CU(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
  EXPECT_CU(d.cuMemPoolDestroy(pool));
}

TEST(PointerAttributes, SayWhereMemoryLives) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUdeviceptr device_memory = 0;
  ASSERT_CU(d.cuMemAlloc(&device_memory, 4096));
  void* pinned = nullptr;
  ASSERT_CU(d.cuMemAllocHost(&pinned, 4096));
  unsigned type = 0;
  EXPECT_CU(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, device_memory));
  EXPECT_EQ(static_cast<unsigned>(CU_MEMORYTYPE_DEVICE), type);
  EXPECT_CU(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(pinned)));
  EXPECT_EQ(static_cast<unsigned>(CU_MEMORYTYPE_HOST), type);
  int ordinal = -1;
  EXPECT_CU(d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, device_memory + 100));
  EXPECT_EQ(0, ordinal);
  CUdeviceptr start = 0;
  std::size_t size = 0;
  EXPECT_CU(d.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, device_memory + 100));
  EXPECT_CU(d.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, device_memory + 100));
  EXPECT_EQ(device_memory, start);
  EXPECT_GE(size, 4096u);
  // Ordinary host memory is none of the driver's.
  std::vector<unsigned char> pageable(64);
  EXPECT_EQ("CUDA_ERROR_INVALID_VALUE",
            result_name(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                reinterpret_cast<CUdeviceptr>(pageable.data()))));
  EXPECT_CU(d.cuMemFreeHost(pinned));
  EXPECT_CU(d.cuMemFree(device_memory));
}

// The plural form answers several attributes at once, and for memory none of the driver's gives the null
// value of each instead of an error.
TEST(PointerAttributes, SeveralAtOnceAndNullValuesForOrdinaryHostMemory) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUdeviceptr device_memory = 0;
  ASSERT_CU(d.cuMemAlloc(&device_memory, 4096));
  unsigned type = 0;
  int ordinal = -1;
  CUcontext owner = nullptr;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                      CU_POINTER_ATTRIBUTE_CONTEXT};
  void* answers[] = {&type, &ordinal, &owner};
  EXPECT_CU(d.cuPointerGetAttributes(3, attributes, answers, device_memory + 8));
  EXPECT_EQ(static_cast<unsigned>(CU_MEMORYTYPE_DEVICE), type);
  EXPECT_EQ(0, ordinal);
  EXPECT_EQ(context.get(), owner);
  std::vector<unsigned char> pageable(64);
  owner = context.get();
  type = CU_MEMORYTYPE_DEVICE;
  EXPECT_CU(d.cuPointerGetAttributes(3, attributes, answers, reinterpret_cast<CUdeviceptr>(pageable.data())));
  EXPECT_EQ(0u, type);
  EXPECT_EQ(nullptr, owner);
  EXPECT_CU(d.cuMemFree(device_memory));
}

// A memset node's value is repeated per element; one wider than its element is copied into each element
// of a 4-byte word and the copies ORed (what an H100 with driver 580.159.04 wrote for 0x11223344, 2026-12-07).
TEST(Graphs, MemsetNodesFillElementsOfOneTwoOrFourBytes) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  constexpr std::size_t kBytes = 64;
  struct Case {
    unsigned element;
    std::uint32_t value;
    unsigned char word[4];  // the bytes of every 4-byte word afterwards
  };
  const Case cases[] = {
      {1, 0x5a, {0x5a, 0x5a, 0x5a, 0x5a}},         {2, 0x1234, {0x34, 0x12, 0x34, 0x12}},
      {4, 0x11223344, {0x44, 0x33, 0x22, 0x11}},   {1, 0x11223344, {0x44, 0x77, 0x77, 0x77}},
      {2, 0x11223344, {0x44, 0x33, 0x66, 0x33}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("element size " + std::to_string(c.element) + ", value " + std::to_string(c.value));
    CUdeviceptr target = 0;
    ASSERT_CU(d.cuMemAlloc(&target, kBytes));
    CUgraph graph = nullptr;
    ASSERT_CU(d.cuGraphCreate(&graph, 0));
    CUDA_MEMSET_NODE_PARAMS params{};
    params.dst = target;
    params.value = c.value;
    params.elementSize = c.element;
    params.width = kBytes / c.element;
    params.height = 1;
    CUgraphNode node = nullptr;
    ASSERT_CU(d.cuGraphAddMemsetNode(&node, graph, nullptr, 0, &params, context.get()));
    CUgraphExec exec = nullptr;
    ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
    ASSERT_CU(d.cuGraphLaunch(exec, stream.get()));
    ASSERT_CU(d.cuStreamSynchronize(stream.get()));
    std::vector<unsigned char> back(kBytes);
    ASSERT_CU(d.cuMemcpyDtoH(back.data(), target, kBytes));
    for (std::size_t i = 0; i < kBytes; ++i) EXPECT_EQ(c.word[i % 4], back[i]) << "byte " << i;
    EXPECT_CU(d.cuGraphExecDestroy(exec));
    EXPECT_CU(d.cuGraphDestroy(graph));
    EXPECT_CU(d.cuMemFree(target));
  }
}

}  // namespace
}  // namespace gilsan::test
