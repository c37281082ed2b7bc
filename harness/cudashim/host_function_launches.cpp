// cuLaunchHostFunc and cuStreamAddCallback (and their per-thread-default-stream forms): the driver is
// handed a record and a trampoline of ours in place of the application's function, and the observer
// is told of the enqueue; a launch into a stream capture becomes a graph host node instead.
#include <cuda.h>

#include "harness/cudashim/graph_host_nodes.h"
#include "harness/cudashim/host_function_record.h"
#include "harness/cudashim/observed_call.h"
#include "harness/cudashim/real_driver.h"

namespace gilsan::cudashim {
namespace {

using GetCaptureInfo = decltype(&::cuStreamGetCaptureInfo);  // cuStreamGetCaptureInfo_v3

// The graph a capture on `stream` is building, or null when the stream is not capturing. Asked at each
// watched launch: captures can start through entry points gilsan does not wrap.
CUgraph capturing_graph(CUstream stream, bool per_thread) {
  static const auto default_stream = reinterpret_cast<GetCaptureInfo>(real_function("cuStreamGetCaptureInfo_v3"));
  static const auto per_thread_stream =
      reinterpret_cast<GetCaptureInfo>(real_function("cuStreamGetCaptureInfo_v3_ptsz"));
  const GetCaptureInfo get_capture_info = per_thread ? per_thread_stream : default_stream;
  if (get_capture_info == nullptr) return nullptr;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph graph = nullptr;
  if (get_capture_info(stream, &status, nullptr, &graph, nullptr, nullptr, nullptr) != CUDA_SUCCESS) return nullptr;
  return status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? graph : nullptr;
}

template <bool PerThread>
CUresult launch_host_func(CUstream stream, CUhostFn fn, void* user_data) {
  using Real = CUresult (*)(CUstream, CUhostFn, void*);
  static const Real real = real_or_unavailable<Real>(PerThread ? "cuLaunchHostFunc_ptsz" : "cuLaunchHostFunc");
  if (fn == nullptr || !driverhooks::observed()) return real(stream, fn, user_data);
  CallScope scope("cuLaunchHostFunc", target_of(stream));
  const CUgraph capture = capturing_graph(stream, PerThread);
  HostFunctionRecord* record = make_record(fn, nullptr, user_data, scope.context(), stream, capture != nullptr);
  // Copied before the launch: once it is enqueued, a one-shot record may run and be freed at any time.
  const GilsanSimHostFunction run = run_of(*record);
  if (capture == nullptr) record->maybe_pending = driverhooks::host_function_pending(run, kBoardDriverName);
  const CUresult result = real(stream, &run_host_function_record, record);
  if (result != CUDA_SUCCESS) {
    if (capture == nullptr) driverhooks::host_function_not_launched(run, kBoardDriverName);
    if (!record->lasting) delete record;  // a captured one is kept, as a failed graph call's is
  } else if (capture != nullptr) {
    graph_node_added(capture, nullptr, record);
  } else {
    driverhooks::host_function_enqueued(run);
  }
  return scope.finish(result);
}

template <bool PerThread>
CUresult stream_add_callback(CUstream stream, CUstreamCallback callback, void* user_data, unsigned int flags) {
  using Real = CUresult (*)(CUstream, CUstreamCallback, void*, unsigned int);
  static const Real real = real_or_unavailable<Real>(PerThread ? "cuStreamAddCallback_ptsz" : "cuStreamAddCallback");
  if (callback == nullptr || !driverhooks::observed()) return real(stream, callback, user_data, flags);
  CallScope scope("cuStreamAddCallback", target_of(stream));
  HostFunctionRecord* record = make_record(nullptr, callback, user_data, scope.context(), stream, false);
  const GilsanSimHostFunction run = run_of(*record);
  record->maybe_pending = driverhooks::host_function_pending(run, kBoardDriverName);
  const CUresult result = real(stream, &run_stream_callback_record, record, flags);
  if (result != CUDA_SUCCESS) {
    driverhooks::host_function_not_launched(run, kBoardDriverName);
    delete record;
  } else {
    driverhooks::host_function_enqueued(run);
  }
  return scope.finish(result);
}

}  // namespace

std::span<const WrappedEntryPoint> host_function_entry_points() {
  static const WrappedEntryPoint entries[] = {
      {"cuLaunchHostFunc", reinterpret_cast<void*>(&launch_host_func<false>), nullptr, "cuLaunchHostFunc", nullptr},
      {"cuLaunchHostFunc_ptsz", reinterpret_cast<void*>(&launch_host_func<true>), nullptr, "cuLaunchHostFunc", nullptr},
      {"cuStreamAddCallback", reinterpret_cast<void*>(&stream_add_callback<false>), nullptr, "cuStreamAddCallback",
       nullptr},
      {"cuStreamAddCallback_ptsz", reinterpret_cast<void*>(&stream_add_callback<true>), nullptr,
       "cuStreamAddCallback", nullptr},
  };
  return entries;
}

}  // namespace gilsan::cudashim
