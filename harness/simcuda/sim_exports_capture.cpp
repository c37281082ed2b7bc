// Stream capture: begin, end, status and info.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_capture.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim::api {
namespace {

CUstreamCaptureStatus status_of(const SimStream& stream) {
  if (!stream.capture) return CU_STREAM_CAPTURE_STATUS_NONE;
  return stream.capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

}  // namespace

CUresult stream_begin_capture(CUstream hStream, CUstreamCaptureMode mode, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamBeginCapture"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    return begin_capture(*stream, mode);
  }));
}

CUresult stream_begin_capture_to_graph(CUstream hStream, CUgraph hGraph, const CUgraphNode* dependencies,
                                       const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                       CUstreamCaptureMode mode, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamBeginCaptureToGraph"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (!default_edges(dependencyData, numDependencies)) return api.finish(SimDriver::instance().unsupported());
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    return begin_capture_to_graph(*stream, mode, graph, dependencies, numDependencies);
  }));
}

CUresult stream_end_capture(CUstream hStream, CUgraph* phGraph, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamEndCapture"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (phGraph == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<SimGraph> graph;
    CUresult rc = end_capture(*stream, graph);
    *phGraph = graph ? graph->handle() : nullptr;
    return rc;
  }));
}

CUresult stream_is_capturing(CUstream hStream, CUstreamCaptureStatus* captureStatus, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamIsCapturing"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (captureStatus == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    *captureStatus = status_of(*stream);
    return CUDA_SUCCESS;
  }));
}

CUresult stream_get_capture_info(CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out,
                                 CUgraph* graph_out, const CUgraphNode** dependencies_out,
                                 const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out,
                                 DefaultStream null_stream) {
  ApiScope api(entry("cuStreamGetCaptureInfo"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (captureStatus_out == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    *captureStatus_out = status_of(*stream);
    if (*captureStatus_out != CU_STREAM_CAPTURE_STATUS_ACTIVE) return CUDA_SUCCESS;
    const CaptureState& capture = *stream->capture;
    if (id_out != nullptr) *id_out = capture.id;
    if (graph_out != nullptr) *graph_out = capture.graph->handle();
    if (dependencies_out != nullptr) *dependencies_out = capture.frontier_handles.data();
    if (edgeData_out != nullptr) *edgeData_out = capture.edge_data.data();
    if (numDependencies_out != nullptr) *numDependencies_out = capture.frontier_handles.size();
    return CUDA_SUCCESS;
  }));
}

CUresult stream_update_capture_dependencies(CUstream hStream, CUgraphNode* dependencies,
                                            const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                            unsigned int flags, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamUpdateCaptureDependencies"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES && flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (!default_edges(dependencyData, numDependencies)) return api.finish(SimDriver::instance().unsupported());
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    if (!stream->capture) return CUDA_ERROR_ILLEGAL_STATE;
    return update_capture_frontier(*stream, dependencies, numDependencies,
                                   flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  }));
}

}  // namespace gilsan::sim::api
