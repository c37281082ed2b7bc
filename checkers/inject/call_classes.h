// What the injection library does with each driver entry point, decided once per CUPTI callback id
// from the symbol CUPTI reports, so that the hot path is one array load: most calls (kernel
// launches, queries) are of no interest outside a host function and cost nothing more.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "checkers/core/events.h"

namespace gilsan::checkers::inject {

enum class CallKind : std::uint8_t {
  other,                       // reported only inside a host function, or when the profile says it blocks
  launch_host_func,            // cuLaunchHostFunc(hStream, fn, userData)
  graph_add_host_node,         // cuGraphAddHostNode(..., nodeParams)
  graph_host_node_set_params,  // cuGraphHostNodeSetParams(hNode, nodeParams)
  graph_exec_host_node_set_params,  // cuGraphExecHostNodeSetParams(hGraphExec, hNode, nodeParams)
  graph_add_node,              // cuGraphAddNode(..., nodeParams) with a CUgraphNodeParams
  graph_add_node_v2,           // cuGraphAddNode_v2: dependencyData before numDependencies
  graph_node_set_params,       // cuGraphNodeSetParams(hNode, nodeParams)
  graph_exec_node_set_params,  // cuGraphExecNodeSetParams(hGraphExec, hNode, nodeParams)
  stream_synchronize,          // (hStream)
  event_synchronize,           // (hEvent)
  context_synchronize,         // () or, cuCtxSynchronize_v2, (ctx)
  event_record,                // (hEvent, hStream[, flags])
  event_destroy,               // (hEvent)
  stream_destroy,              // (hStream)
  context_destroy,             // (ctx)
  context_made,                // cuCtxCreate*, cuDevicePrimaryCtxRetain: (CUcontext* pctx, ...)
  capture_begin,               // cuStreamBeginCapture*, cuStreamBeginCaptureToGraph
  capture_end,                 // cuStreamEndCapture
};

struct CallClass {
  CallKind kind = CallKind::other;
  std::string entry_point;  // without suffixes: "cuStreamSynchronize"
  bool per_thread = false;  // _ptsz/_ptds: the NULL stream is the per-thread stream
  bool versioned = false;   // a _vN variant (e.g. cuCtxSynchronize_v2 takes a context)
  bool blocks_while_host_function_runs = false;  // from the driver profile
  bool refused_in_host_function = false;         // from the driver profile
  // A runtime error lookup (cudaGetErrorName/String, cudaGetLastError, cudaPeekAtLastError): reads
  // the runtime's state only, and bindings call it to word the error of a refused call, which is
  // reported itself. The core excludes cuGetErrorName/String the same way.
  bool error_lookup = false;
};

// Classifies a symbol; `behaviour` answers blocks_while_host_function_runs.
CallClass classify_call(const char* symbol, const DriverBehaviour& behaviour);

// The per-callback-id cache. Thread-safe; a class, once made, lives as long as the cache.
class CallClassCache {
 public:
  explicit CallClassCache(DriverBehaviour behaviour) : behaviour_(std::move(behaviour)) {}
  const CallClass& get(std::uint32_t callback_id, const char* symbol);

  static constexpr std::size_t kCachedIds = 1024;  // CUDA 13.0 has 807 driver callback ids

 private:
  DriverBehaviour behaviour_;
  std::array<std::atomic<const CallClass*>, kCachedIds> by_id_{};
  std::mutex mutex_;
  std::deque<CallClass> classes_;  // stable addresses
  std::unordered_map<std::uint32_t, const CallClass*> beyond_array_;  // ids of a newer CUPTI
};

}  // namespace gilsan::checkers::inject
