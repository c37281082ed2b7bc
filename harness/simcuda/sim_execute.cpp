#include "harness/simcuda/sim_execute.h"

#include <cstring>
#include <thread>

#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_kernels.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_stream.h"

namespace gilsan::sim {
namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

unsigned char* address_of(CUmemorytype type, const void* host, CUdeviceptr device) {
  if (type == CU_MEMORYTYPE_HOST) return static_cast<unsigned char*>(const_cast<void*>(host));
  return reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(device));
}

void copy(const Copy& work) {
  const CUDA_MEMCPY3D& shape = work.shape;
  const unsigned char* source =
      work.staged ? work.staged->data() : address_of(shape.srcMemoryType, shape.srcHost, shape.srcDevice);
  unsigned char* destination = address_of(shape.dstMemoryType, shape.dstHost, shape.dstDevice);
  std::size_t height = shape.Height == 0 ? 1 : shape.Height;
  std::size_t depth = shape.Depth == 0 ? 1 : shape.Depth;
  std::size_t source_pitch = shape.srcPitch == 0 ? shape.WidthInBytes : shape.srcPitch;
  std::size_t destination_pitch = shape.dstPitch == 0 ? shape.WidthInBytes : shape.dstPitch;
  std::size_t source_height = shape.srcHeight == 0 ? height : shape.srcHeight;
  std::size_t destination_height = shape.dstHeight == 0 ? height : shape.dstHeight;
  // A staged snapshot starts at the first byte of the copy.
  std::size_t source_origin = work.staged ? 0
                                          : shape.srcXInBytes + shape.srcY * source_pitch +
                                                shape.srcZ * source_pitch * source_height;
  std::size_t destination_origin =
      shape.dstXInBytes + shape.dstY * destination_pitch + shape.dstZ * destination_pitch * destination_height;
  for (std::size_t z = 0; z < depth; ++z) {
    for (std::size_t y = 0; y < height; ++y) {
      std::memmove(destination + destination_origin + (z * destination_height + y) * destination_pitch,
                   source + source_origin + (z * source_height + y) * source_pitch, shape.WidthInBytes);
    }
  }
}

// The 4-byte pattern a fill repeats: `value` copied into each element of the word, the copies ORed, as
// the driver does for a memset node whose value is wider than its element (measured on an H100,
// tests/sim/mem_pool_test.cpp; a value that fits its element is simply repeated).
std::uint32_t fill_pattern(std::uint32_t value, unsigned element_size) {
  if (element_size == 1) return value | value << 8 | value << 16 | value << 24;
  if (element_size == 2) return value | value << 16;
  return value;
}

void fill(const Fill& work) {
  auto* bytes = reinterpret_cast<unsigned char*>(work.destination);
  const std::size_t size = work.count * work.element_size;
  if (work.element_size == 1 && work.value <= 0xff) {
    std::memset(bytes, static_cast<int>(work.value), size);
    return;
  }
  const std::uint32_t pattern = fill_pattern(work.value, work.element_size);
  unsigned char word[4];
  std::memcpy(word, &pattern, 4);  // little-endian, as the GPU's
  for (std::size_t i = 0; i < size; ++i) bytes[i] = word[i % 4];
}

void run_kernel(const KernelRun& work, SimStream& stream) {
  if (work.kernel == &empty_kernel()) return;  // GILSAN_SIM_KERNELS=empty: a kernel the sim cannot run
  if (work.kernel->name == "gilsan_spin_ns") {
    std::this_thread::sleep_for(std::chrono::nanoseconds(work.args[0]));
    return;
  }
  // gilsan_fill_u32(dst, value, count): a bad address faults the context, as on the GPU.
  const std::uintptr_t destination = work.args[0];
  const std::size_t count = work.args[2];
  {
    Lock lock(SimDriver::instance().mutex);
    if (count > 0 && !device_accessible(destination, count * 4)) {
      stream.context->sticky_error = CUDA_ERROR_ILLEGAL_ADDRESS;
      SimDriver::instance().progress.notify_all();
      return;
    }
  }
  fill(Fill{destination, static_cast<std::uint32_t>(work.args[1]), 4, count});
}

void run_host_call(const HostCall& call, SimStream& stream) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  HostTask task;
  task.info.id = call.run_key;
  task.info.context = stream.context->handle();
  task.info.stream = stream.handle();
  task.info.fn = call.fn;
  task.info.user_data = call.user_data;
  task.info.callback = call.stream_callback;
  task.stream_callback = call.stream_callback;
  task.callback_stream = call.stream_handle;
  task.context = stream.context;
  task.counts_toward_enqueue_depth = call.counts_toward_enqueue_depth;
  task.maybe_pending = call.maybe_pending;
  callback_thread_for(stream)->run(lock, task);
}

void stamp_event(const EventStamp& work) {
  Lock lock(SimDriver::instance().mutex);
  if (work.event->generation == work.generation) work.event->stamp = std::chrono::steady_clock::now();
}

void run_graph(const GraphRun& work, SimStream& stream) {
  for (const WorkItem& step : work.exec->steps) {
    {
      Lock lock(SimDriver::instance().mutex);
      if (stream.context->sticky_error != CUDA_SUCCESS) return;
    }
    execute(step, stream);
  }
}

}  // namespace

void execute(const WorkItem& work, SimStream& stream) {
  std::visit(Overloaded{
                 [](const NoWork&) {},
                 [](const DeviceWork& w) { std::this_thread::sleep_for(w.duration); },
                 [&](const KernelRun& w) { run_kernel(w, stream); },
                 [](const Copy& w) { copy(w); },
                 [](const Fill& w) { fill(w); },
                 [&](const HostCall& w) { run_host_call(w, stream); },
                 [](const EventStamp& w) { stamp_event(w); },
                 [&](const GraphRun& w) { run_graph(w, stream); },
                 [](const PoolFree& w) {
                   Lock lock(SimDriver::instance().mutex);
                   return_to_pool(w.address);
                 },
             },
             work);
}

void discard(const WorkItem& work, SimStream& stream) {
  if (const auto* call = std::get_if<HostCall>(&work); call != nullptr && call->counts_toward_enqueue_depth) {
    callback_thread_for(stream)->pending_launches -= 1;
    SimDriver::instance().progress.notify_all();
  }
  if (const auto* free = std::get_if<PoolFree>(&work)) return_to_pool(free->address);
}

}  // namespace gilsan::sim
