// The default forms of the entry points that take a stream: a NULL stream is the legacy stream.
// cuda.h's macros give each definition its exported name (cuMemcpyHtoD -> cuMemcpyHtoD_v2, ...).
// The per-thread forms are in sim_exports_per_thread.cpp; both call sim_stream_entry_points.h.
#include <cuda.h>

#include "harness/simcuda/sim_stream_entry_points.h"

extern "C" {

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  return gilsan::sim::api::stream_synchronize(hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream) {
  return gilsan::sim::api::stream_query(hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return gilsan::sim::api::stream_wait_event(hStream, hEvent, Flags, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
  return gilsan::sim::api::stream_get_ctx(hStream, pctx, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return gilsan::sim::api::stream_get_flags(hStream, flags, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags) {
  return gilsan::sim::api::stream_add_callback(hStream, callback, userData, flags, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  return gilsan::sim::api::launch_host_func(hStream, fn, userData, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode) {
  return gilsan::sim::api::stream_begin_capture(hStream, mode, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  return gilsan::sim::api::stream_end_capture(hStream, phGraph, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return gilsan::sim::api::stream_is_capturing(hStream, captureStatus, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out, CUgraph* graph_out, const CUgraphNode** dependencies_out, const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  return gilsan::sim::api::stream_get_capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  return gilsan::sim::api::event_record(hEvent, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return gilsan::sim::api::mem_alloc_async(dptr, bytesize, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return gilsan::sim::api::mem_free_async(dptr, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  return gilsan::sim::api::mem_alloc_from_pool_async(dptr, bytesize, pool, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return gilsan::sim::api::memcpy_htod(dstDevice, srcHost, ByteCount, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyDtoH(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return gilsan::sim::api::memcpy_dtoh(dstHost, srcDevice, ByteCount, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return gilsan::sim::api::memcpy_dtod(dstDevice, srcDevice, ByteCount, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  return gilsan::sim::api::memcpy_htod_async(dstDevice, srcHost, ByteCount, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return gilsan::sim::api::memcpy_dtoh_async(dstHost, srcDevice, ByteCount, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return gilsan::sim::api::memcpy_dtod_async(dstDevice, srcDevice, ByteCount, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return gilsan::sim::api::memset_d8(dstDevice, uc, N, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return gilsan::sim::api::memset_d32(dstDevice, ui, N, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return gilsan::sim::api::memset_d8_async(dstDevice, uc, N, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return gilsan::sim::api::memset_d32_async(dstDevice, ui, N, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return gilsan::sim::api::launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  return gilsan::sim::api::graph_upload(hGraphExec, hStream, gilsan::sim::DefaultStream::Legacy);
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  return gilsan::sim::api::graph_launch(hGraphExec, hStream, gilsan::sim::DefaultStream::Legacy);
}

}  // extern "C"
