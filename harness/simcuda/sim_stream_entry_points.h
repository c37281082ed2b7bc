// The entry points that take a stream, with what a NULL stream means passed in.
//
// cuda.h gives each of these two exported forms: the default one (NULL is the legacy stream) and a
// _ptsz/_ptds one (NULL is the calling thread's per-thread stream). Both forms call these functions,
// which open the ApiScope and do the work; sim_exports_default_stream.cpp and
// sim_exports_per_thread.cpp hold the two sets of exported symbols.
#pragma once

#include <cuda.h>

#include "harness/simcuda/sim_stream.h"

namespace gilsan::sim::api {

CUresult stream_synchronize(CUstream stream, DefaultStream null_stream);
CUresult stream_query(CUstream stream, DefaultStream null_stream);
CUresult stream_wait_event(CUstream stream, CUevent event, unsigned flags, DefaultStream null_stream);
CUresult stream_get_ctx(CUstream stream, CUcontext* context, DefaultStream null_stream);
CUresult stream_get_flags(CUstream stream, unsigned* flags, DefaultStream null_stream);
CUresult stream_get_priority(CUstream stream, int* priority, DefaultStream null_stream);
CUresult stream_add_callback(CUstream stream, CUstreamCallback callback, void* user_data, unsigned flags,
                             DefaultStream null_stream);
CUresult launch_host_func(CUstream stream, CUhostFn fn, void* user_data, DefaultStream null_stream);

CUresult stream_begin_capture(CUstream stream, CUstreamCaptureMode mode, DefaultStream null_stream);
CUresult stream_end_capture(CUstream stream, CUgraph* graph, DefaultStream null_stream);
CUresult stream_is_capturing(CUstream stream, CUstreamCaptureStatus* status, DefaultStream null_stream);
CUresult stream_begin_capture_to_graph(CUstream stream, CUgraph graph, const CUgraphNode* dependencies,
                                       const CUgraphEdgeData* data, size_t count, CUstreamCaptureMode mode,
                                       DefaultStream null_stream);
CUresult stream_update_capture_dependencies(CUstream stream, CUgraphNode* dependencies, const CUgraphEdgeData* data,
                                            size_t count, unsigned int flags, DefaultStream null_stream);
CUresult stream_get_capture_info(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                                 const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data,
                                 size_t* dependency_count, DefaultStream null_stream);

CUresult event_record(CUevent event, CUstream stream, DefaultStream null_stream);

CUresult mem_alloc_async(CUdeviceptr* pointer, size_t bytes, CUstream stream, DefaultStream null_stream);
CUresult mem_free_async(CUdeviceptr pointer, CUstream stream, DefaultStream null_stream);
CUresult mem_alloc_from_pool_async(CUdeviceptr* pointer, size_t bytes, CUmemoryPool pool, CUstream stream,
                                   DefaultStream null_stream);

// The synchronous copies and sets run on the default stream (legacy, or per-thread for _ptds).
CUresult memcpy_htod(CUdeviceptr destination, const void* source, size_t bytes, DefaultStream null_stream);
CUresult memcpy_dtoh(void* destination, CUdeviceptr source, size_t bytes, DefaultStream null_stream);
CUresult memcpy_dtod(CUdeviceptr destination, CUdeviceptr source, size_t bytes, DefaultStream null_stream);
CUresult memcpy_htod_async(CUdeviceptr destination, const void* source, size_t bytes, CUstream stream,
                           DefaultStream null_stream);
CUresult memcpy_dtoh_async(void* destination, CUdeviceptr source, size_t bytes, CUstream stream,
                           DefaultStream null_stream);
CUresult memcpy_dtod_async(CUdeviceptr destination, CUdeviceptr source, size_t bytes, CUstream stream,
                           DefaultStream null_stream);
CUresult memset_d8(CUdeviceptr destination, unsigned char value, size_t count, DefaultStream null_stream);
CUresult memset_d32(CUdeviceptr destination, unsigned value, size_t count, DefaultStream null_stream);
CUresult memset_d8_async(CUdeviceptr destination, unsigned char value, size_t count, CUstream stream,
                         DefaultStream null_stream);
CUresult memset_d32_async(CUdeviceptr destination, unsigned value, size_t count, CUstream stream,
                          DefaultStream null_stream);

CUresult launch_kernel(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                       unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream, void** params,
                       void** extra, DefaultStream null_stream);
CUresult launch_kernel_ex(const CUlaunchConfig* config, CUfunction function, void** params, void** extra,
                          DefaultStream null_stream);
CUresult graph_upload(CUgraphExec exec, CUstream stream, DefaultStream null_stream);
CUresult graph_launch(CUgraphExec exec, CUstream stream, DefaultStream null_stream);
// The upload stream of CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD is the stream argument here.
CUresult graph_instantiate_with_params(CUgraphExec* exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS* params,
                                       DefaultStream null_stream);

}  // namespace gilsan::sim::api
