// Child scenarios about the driver as a whole: start-up errors, several devices, the callback-thread
// topology, the enqueue depth, a faulted context, and exiting with work pending.
#include <dlfcn.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "harness/driver/device_work.h"
#include "tests/sim/child_scenarios.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

constexpr std::chrono::milliseconds kOverlapWithin{1000};

const char* yes_no(bool value) { return value ? "yes" : "no"; }

void CUDA_CB set_flag(void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }

struct ThreadOf {
  std::atomic<bool> ran{false};
  std::thread::id thread;
  static void CUDA_CB run(void* self) {
    auto* me = static_cast<ThreadOf*>(self);
    me->thread = std::this_thread::get_id();
    me->ran.store(true);
  }
};

// Blocks its callback thread for good. Its state is leaked: the process exits while it waits.
void CUDA_CB block_forever(void*) {
  static auto* mutex = new std::mutex();
  static auto* never = new std::condition_variable();
  std::unique_lock<std::mutex> lock(*mutex);
  for (;;) never->wait(lock);
}

}  // namespace

int child_init(const std::string&) {
  CUresult rc = driver().cuInit(0);
  report("cuInit", std::to_string(static_cast<int>(rc)));
  if (on_sim()) {
    void* library = dlopen(driver().library_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
    auto last_error = library ? reinterpret_cast<const char* (*)()>(dlsym(library, "gilsanSimLastError")) : nullptr;
    report("last-error", last_error ? last_error() : "(gilsanSimLastError not found)");
  }
  return 0;
}

int child_devices(const std::string&) {
  const DriverTable& d = driver();
  int count = 0;
  d.cuDeviceGetCount(&count);
  report("devices", std::to_string(count));
  if (count < 2) return 0;
  CUcontext contexts[2];
  CUstream streams[2];
  for (int i = 0; i < 2; ++i) {
    if (d.cuDevicePrimaryCtxRetain(&contexts[i], i) != CUDA_SUCCESS || d.cuCtxSetCurrent(contexts[i]) != CUDA_SUCCESS ||
        d.cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
      return 4;
    CUdevice device = -1;
    d.cuCtxGetDevice(&device);
    report("context-device-" + std::to_string(i), std::to_string(device));
  }
  Gate gate;
  gate.launch(streams[0]);
  gate.wait_entered();
  ThreadOf other;
  d.cuLaunchHostFunc(streams[1], &ThreadOf::run, &other);
  report("devices-overlap", yes_no(eventually([&] { return other.ran.load(); }, std::chrono::milliseconds(kHangTimeout))));
  gate.open();
  // Memory of device 1, filled by the kernel path and read back.
  CUdeviceptr words = 0;
  std::uint32_t back[64] = {};
  bool memory_ok = d.cuMemAlloc(&words, sizeof back) == CUDA_SUCCESS &&
                   launch_fill_u32(d, streams[1], words, 0xabcd1234u, 64) == CUDA_SUCCESS &&
                   d.cuMemcpyDtoHAsync(back, words, sizeof back, streams[1]) == CUDA_SUCCESS &&
                   d.cuStreamSynchronize(streams[1]) == CUDA_SUCCESS && back[0] == 0xabcd1234u && back[63] == 0xabcd1234u;
  report("device-1-memory", yes_no(memory_ok));
  d.cuStreamSynchronize(streams[0]);
  return 0;
}

int child_topology(const std::string&) {
  const DriverTable& d = driver();
  CUdevice device = 0;
  CUcontext primary = nullptr;
  CUcontext second = nullptr;
  CUstream s1, s2, s3;
  if (d.cuDeviceGet(&device, 0) != CUDA_SUCCESS || d.cuDevicePrimaryCtxRetain(&primary, device) != CUDA_SUCCESS ||
      d.cuCtxCreate(&second, nullptr, 0, device) != CUDA_SUCCESS ||
      d.cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || d.cuCtxSetCurrent(primary) != CUDA_SUCCESS ||
      d.cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
      d.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  Gate gate;
  gate.launch(s1);
  gate.wait_entered();
  ThreadOf same_context;
  ThreadOf other_context;
  d.cuLaunchHostFunc(s2, &ThreadOf::run, &same_context);
  d.cuLaunchHostFunc(s3, &ThreadOf::run, &other_context);
  report("streams-overlap", yes_no(eventually([&] { return same_context.ran.load(); }, kOverlapWithin)));
  report("contexts-overlap", yes_no(eventually([&] { return other_context.ran.load(); }, kOverlapWithin)));
  gate.open();
  d.cuStreamSynchronize(s2);
  d.cuStreamSynchronize(s3);
  report("streams-share-thread", yes_no(same_context.thread == gate.thread()));
  return 0;
}

int child_enqueue_depth(const std::string& argument) {
  const DriverTable& d = driver();
  const int depth = std::stoi(argument);
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream s1, s2;
  if (d.cuDeviceGet(&device, 0) != CUDA_SUCCESS || d.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      d.cuCtxSetCurrent(context) != CUDA_SUCCESS || d.cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
      d.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  Gate gate;
  gate.launch(s1);
  gate.wait_entered();
  for (int i = 0; i < depth; ++i) {
    if (d.cuLaunchHostFunc(s2, &do_nothing, nullptr) != CUDA_SUCCESS) return 4;
  }
  report("pending", std::to_string(depth));
  std::atomic<bool> returned{false};
  std::atomic<bool> opened{false};
  std::thread releaser([&] {
    eventually([&] { return returned.load(); }, std::chrono::milliseconds(1000));
    opened.store(true);
    gate.open();
  });
  d.cuLaunchHostFunc(s2, &do_nothing, nullptr);
  const bool gate_was_open = opened.load();
  returned.store(true);
  report("verdict", gate_was_open ? "blocks" : "returns");
  releaser.join();
  d.cuStreamSynchronize(s2);
  return 0;
}

int child_sticky_error(const std::string&) {
  const DriverTable& d = driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream;
  if (d.cuDeviceGet(&device, 0) != CUDA_SUCCESS || d.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      d.cuCtxSetCurrent(context) != CUDA_SUCCESS || d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  // Made before the fault, to be used and let go after it.
  CUstream second;
  CUevent event;
  CUdeviceptr allocation = 0;
  if (d.cuStreamCreate(&second, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || d.cuEventCreate(&event, 0) != CUDA_SUCCESS ||
      d.cuMemAlloc(&allocation, 4096) != CUDA_SUCCESS)
    return 4;
  std::atomic<bool> ran{false};
  // An address no allocation holds: the kernel faults the context.
  report("launch", std::to_string(static_cast<int>(launch_fill_u32(d, stream, 0x1000, 7, 1024))));
  d.cuLaunchHostFunc(stream, &set_flag, &ran);
  report("synchronize", std::to_string(static_cast<int>(d.cuStreamSynchronize(stream))));
  report("host-function-ran", yes_no(ran.load()));
  // What each kind of call returns on the failed context: the queries and the releases too.
  auto after = [](const char* call, CUresult result) { report(std::string("after-fault ") + call, std::to_string(result)); };
  std::atomic<bool> ran_after{false};
  CUstream new_stream;
  CUevent new_event;
  CUdeviceptr new_allocation = 0;
  CUcontext current = nullptr;
  after("cuStreamQuery", d.cuStreamQuery(stream));
  after("cuLaunchHostFunc", d.cuLaunchHostFunc(second, &set_flag, &ran_after));
  after("cuEventRecord", d.cuEventRecord(event, second));
  after("cuEventQuery", d.cuEventQuery(event));
  after("cuEventSynchronize", d.cuEventSynchronize(event));
  after("cuStreamCreate", d.cuStreamCreate(&new_stream, CU_STREAM_NON_BLOCKING));
  after("cuEventCreate", d.cuEventCreate(&new_event, 0));
  after("cuMemAlloc", d.cuMemAlloc(&new_allocation, 4096));
  after("cuCtxSynchronize", d.cuCtxSynchronize());
  after("cuCtxGetCurrent", d.cuCtxGetCurrent(&current));
  after("cuMemFree", d.cuMemFree(allocation));
  after("cuEventDestroy", d.cuEventDestroy(event));
  after("cuStreamDestroy", d.cuStreamDestroy(second));
  after("cuStreamDestroy-faulted", d.cuStreamDestroy(stream));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  report("host-function-after-fault-ran", yes_no(ran_after.load()));
  return 0;
}

// Three host-function launches under GILSAN_SIM_FAIL (set by the test): what each returned, and how
// many of the host functions ran.
int child_injected_failures(const std::string&) {
  const DriverTable& d = driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream;
  if (d.cuInit(0) != CUDA_SUCCESS || d.cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      d.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS || d.cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  std::atomic<int> ran{0};
  auto count = [](void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); };
  std::string results;
  for (int i = 0; i < 3; ++i)
    results += (i ? " " : "") + std::to_string(static_cast<int>(d.cuLaunchHostFunc(stream, count, &ran)));
  report("launches", results);
  report("synchronize", std::to_string(static_cast<int>(d.cuStreamSynchronize(stream))));
  report("ran", std::to_string(ran.load()));
  return 0;
}

// A kernel of the program's own image (one the sim cannot run) looked up and launched; GILSAN_SIM_KERNELS
// decides whether that is CUDA_ERROR_NOT_FOUND or empty device work in stream order.
int child_unknown_kernel(const std::string&) {
  static const char kImage[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry user_kernel(.param .u64 data)\n{\n  ret;\n}\n";
  const DriverTable& d = driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream;
  const CUresult init = d.cuInit(0);
  report("cuInit", std::to_string(static_cast<int>(init)));
  if (init != CUDA_SUCCESS || d.cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      d.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS || d.cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  CUmodule module = nullptr;
  if (d.cuModuleLoadData(&module, kImage) != CUDA_SUCCESS) return 5;
  CUfunction function = nullptr;
  report("get-function", std::to_string(static_cast<int>(d.cuModuleGetFunction(&function, module, "user_kernel"))));
  report("not-in-image", std::to_string(static_cast<int>(d.cuModuleGetFunction(&function, module, "absent"))));
  if (d.cuModuleGetFunction(&function, module, "user_kernel") != CUDA_SUCCESS) return 0;
  unsigned long long data = 0;
  void* params[] = {&data};
  std::atomic<int> ran{0};
  auto count = [](void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); };
  report("launch", std::to_string(static_cast<int>(d.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, params,
                                                                    nullptr))));
  report("host-function", std::to_string(static_cast<int>(d.cuLaunchHostFunc(stream, count, &ran))));
  report("synchronize", std::to_string(static_cast<int>(d.cuStreamSynchronize(stream))));
  report("ran", std::to_string(ran.load()));
  return 0;
}

int child_exit_with_pending_work(const std::string&) {
  const DriverTable& d = driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream busy, blocked;
  if (d.cuDeviceGet(&device, 0) != CUDA_SUCCESS || d.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      d.cuCtxSetCurrent(context) != CUDA_SUCCESS || d.cuStreamCreate(&busy, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
      d.cuStreamCreate(&blocked, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  // Device work far longer than the process lives, and a callback thread that never returns. The
  // kernel is launched first: a launch waits while a host function of its context runs.
  if (launch_device_work(d, busy, std::chrono::seconds(600)) != CUDA_SUCCESS) return 4;
  if (d.cuLaunchHostFunc(busy, &do_nothing, nullptr) != CUDA_SUCCESS) return 4;
  if (d.cuLaunchHostFunc(blocked, &block_forever, nullptr) != CUDA_SUCCESS) return 4;
  report("exiting", "yes");
  return 0;
}

}  // namespace gilsan::test
