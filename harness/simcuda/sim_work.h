// WorkItem: one unit of work a stream (or a graph node) performs, as data.
//
// The same description is executed by a stream's executor, captured into a graph node while the
// stream is capturing, and replayed by a graph launch, so all three paths do exactly the same thing.
#pragma once

#include <cuda.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

namespace gilsan::sim {

struct BuiltinKernel;
struct SimEvent;
struct SimGraphExec;
struct SimMemPool;

// Keeps the stream busy for a while: the counterpart of a spin kernel.
struct DeviceWork {
  std::chrono::nanoseconds duration{0};
};

// One of the sim's named test kernels with its arguments, each widened to 64 bits.
struct KernelRun {
  const BuiltinKernel* kernel = nullptr;
  std::array<std::uint64_t, 4> args{};
};

// A copy of `WidthInBytes` x `Height` x `Depth` bytes; a 1-D copy has Height == Depth == 1.
// `staged` holds a snapshot of pageable source memory taken at enqueue, as the real driver does.
struct Copy {
  CUDA_MEMCPY3D shape{};
  std::shared_ptr<std::vector<unsigned char>> staged;
};

struct Fill {
  std::uintptr_t destination = 0;
  std::uint32_t value = 0;
  unsigned element_size = 1;  // 1 (cuMemsetD8), 4 (cuMemsetD32), or 1, 2 or 4 (a memset node, whose value
                              // may be wider than its element: see fill_pattern in sim_execute.cpp)
  std::size_t count = 0;
};

// A host function (cuLaunchHostFunc, a host node) or a stream callback (cuStreamAddCallback).
struct HostCall {
  CUhostFn fn = nullptr;
  CUstreamCallback stream_callback = nullptr;
  void* user_data = nullptr;
  CUstream stream_handle = nullptr;  // what the application passed; given to stream callbacks
  unsigned long long run_key = 0;    // GilsanSimHostFunction::id (SimDriver::take_run_key)
  bool counts_toward_enqueue_depth = false;  // enqueued by cuLaunchHostFunc (topology.enqueue_blocks_at_depth)
  bool maybe_pending = true;  // false: the board did not take its stream launch's pending note
};

// Completes an event record: stamps the time if the event was not recorded again meanwhile.
struct EventStamp {
  std::shared_ptr<SimEvent> event;
  std::uint64_t generation = 0;
};

struct GraphRun {
  std::shared_ptr<SimGraphExec> exec;
};

// cuMemFreeAsync: the block returns to its pool when the stream reaches this point.
struct PoolFree {
  std::uintptr_t address = 0;
};

// Only dependencies: cuStreamWaitEvent, cuGraphUpload, empty graph nodes.
struct NoWork {};

using WorkItem = std::variant<NoWork, DeviceWork, KernelRun, Copy, Fill, HostCall, EventStamp, GraphRun, PoolFree>;

}  // namespace gilsan::sim
