// Graph instantiation: cuGraphInstantiateWithFlags and cuGraphInstantiateWithParams.
//
// Both make the same executable graph; the params form also reports why an instantiation failed
// (result_out, hErrNode_out) and may upload the result into a stream, which is why cuda.h gives it a
// per-thread form (its upload stream may be NULL) and it is written once for both exports.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
namespace {

// Flags that change nothing in the sim: it has no memory nodes, and it does not schedule by priority.
constexpr cuuint64_t kHarmlessInstantiateFlags =
    CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

// The flags both entry points share. A device launch needs device-side graphs, which are not
// modelled; cuda.h forbids combining it with auto-free.
CUresult check_flags(cuuint64_t flags, cuuint64_t also_allowed) {
  if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) != 0) {
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) != 0) return CUDA_ERROR_INVALID_VALUE;
    return SimDriver::instance().unsupported();
  }
  if ((flags & ~(kHarmlessInstantiateFlags | also_allowed)) != 0) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// Requires the lock. The executable graph of `hGraph` in the current context.
CUresult instantiate_current(CUgraph hGraph, std::shared_ptr<SimGraphExec>& exec) {
  std::shared_ptr<SimGraph> graph = SimDriver::instance().graphs.find(hGraph);
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return CUDA_ERROR_INVALID_CONTEXT;
  return instantiate(*graph, context, exec);
}

}  // namespace

namespace api {

CUresult graph_instantiate_with_params(CUgraphExec* phGraphExec, CUgraph hGraph,
                                       CUDA_GRAPH_INSTANTIATE_PARAMS* params, DefaultStream null_stream) {
  ApiScope api(entry("cuGraphInstantiateWithParams"), on_current_context());
  if (api.refused()) return api.result();
  if (phGraphExec == nullptr || params == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  // Every failure the sim can have is one "described by the return value"; it never blames a node.
  params->hErrNode_out = nullptr;
  params->result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
  const CUresult rc = guarded([&] {
    if (CUresult flags_rc = check_flags(params->flags, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD); flags_rc != CUDA_SUCCESS)
      return flags_rc;
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    // The upload stream is checked before anything is made, so a bad one leaves no executable graph.
    std::shared_ptr<SimStream> upload_stream;
    const bool uploads = (params->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) != 0;
    if (uploads) {
      if (CUresult stream_rc = resolve_stream(params->hUploadStream, null_stream, upload_stream);
          stream_rc != CUDA_SUCCESS)
        return stream_rc;
      if (upload_stream->capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    std::shared_ptr<SimGraphExec> exec;
    if (CUresult made = instantiate_current(hGraph, exec); made != CUDA_SUCCESS) return made;
    if (uploads) {
      if (CUresult uploaded = upload(lock, *upload_stream); uploaded != CUDA_SUCCESS) {
        driver.graph_execs.remove(exec.get());
        return uploaded;
      }
    }
    *phGraphExec = exec->handle();
    return CUDA_SUCCESS;
  });
  if (rc == CUDA_SUCCESS) params->result_out = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  return api.finish(rc);
}

}  // namespace api
}  // namespace gilsan::sim

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
  ApiScope api(entry("cuGraphInstantiateWithFlags"), on_current_context());
  if (api.refused()) return api.result();
  if (phGraphExec == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (CUresult rc = check_flags(flags, 0); rc != CUDA_SUCCESS) return api.finish(rc);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimGraphExec> exec;
    if (CUresult rc = instantiate_current(hGraph, exec); rc != CUDA_SUCCESS) return rc;
    *phGraphExec = exec->handle();
    return CUDA_SUCCESS;
  }));
}

}  // extern "C"
