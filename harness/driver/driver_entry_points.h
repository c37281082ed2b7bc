// The CUDA driver entry points gilsan uses, as one X-macro list.
//
// Each X(name) names the entry point as cuda.h spells it without a version suffix; that spelling is
// what cuGetProcAddress takes. cuda.h maps some of these names to versioned symbols with macros
// (cuMemAlloc -> cuMemAlloc_v2), and the table's member and type follow that mapping, so
// `table.cuMemAlloc(...)` calls the entry point of the version this build's headers declare.
// The real driver and the simulated driver resolve the same list the same way.
#pragma once

#define GILSAN_DRIVER_ENTRY_POINTS(X) \
  /* initialization, version, devices */ \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetUuid) \
  X(cuDeviceGetAttribute) \
  X(cuDeviceTotalMem) \
  X(cuDeviceGetDefaultMemPool) \
  X(cuDeviceGetMemPool) \
  X(cuDeviceSetMemPool) \
  /* contexts */ \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxCreate) \
  X(cuCtxDestroy) \
  X(cuCtxPushCurrent) \
  X(cuCtxPopCurrent) \
  X(cuCtxSetCurrent) \
  X(cuCtxGetCurrent) \
  X(cuCtxGetDevice) \
  X(cuCtxGetStreamPriorityRange) \
  X(cuCtxSynchronize) \
  /* streams */ \
  X(cuStreamCreate) \
  X(cuStreamCreateWithPriority) \
  X(cuStreamDestroy) \
  X(cuStreamSynchronize) \
  X(cuStreamQuery) \
  X(cuStreamWaitEvent) \
  X(cuStreamGetCtx) \
  X(cuStreamGetFlags) \
  X(cuStreamGetPriority) \
  X(cuStreamAddCallback) \
  X(cuLaunchHostFunc) \
  /* stream capture */ \
  X(cuStreamBeginCapture) \
  X(cuStreamBeginCaptureToGraph) \
  X(cuStreamEndCapture) \
  X(cuStreamIsCapturing) \
  X(cuStreamGetCaptureInfo) \
  X(cuStreamUpdateCaptureDependencies) \
  /* events */ \
  X(cuEventCreate) \
  X(cuEventDestroy) \
  X(cuEventRecord) \
  X(cuEventQuery) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  /* memory */ \
  X(cuMemGetInfo) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemAllocHost) \
  X(cuMemFreeHost) \
  X(cuMemHostAlloc) \
  X(cuMemHostRegister) \
  X(cuMemHostUnregister) \
  X(cuMemAllocManaged) \
  X(cuPointerGetAttribute) \
  X(cuPointerGetAttributes) \
  X(cuMemAllocAsync) \
  X(cuMemFreeAsync) \
  X(cuMemAllocFromPoolAsync) \
  X(cuMemPoolTrimTo) \
  X(cuMemPoolCreate) \
  X(cuMemPoolDestroy) \
  X(cuMemPoolSetAttribute) \
  X(cuMemPoolGetAttribute) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemcpyDtoD) \
  X(cuMemcpyHtoDAsync) \
  X(cuMemcpyDtoHAsync) \
  X(cuMemcpyDtoDAsync) \
  X(cuMemsetD8) \
  X(cuMemsetD32) \
  X(cuMemsetD8Async) \
  X(cuMemsetD32Async) \
  /* modules, libraries, kernels */ \
  X(cuModuleLoadData) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuLibraryLoadData) \
  X(cuLibraryUnload) \
  X(cuLibraryGetKernel) \
  X(cuKernelGetFunction) \
  X(cuLaunchKernel) \
  X(cuLaunchKernelEx) \
  /* graphs and user objects */ \
  X(cuGraphCreate) \
  X(cuGraphDestroy) \
  X(cuGraphAddHostNode) \
  X(cuGraphAddKernelNode) \
  X(cuGraphAddMemcpyNode) \
  X(cuGraphAddMemsetNode) \
  X(cuGraphAddEmptyNode) \
  X(cuGraphAddNode) \
  X(cuGraphConditionalHandleCreate) \
  X(cuGraphAddChildGraphNode) \
  X(cuGraphChildGraphNodeGetGraph) \
  X(cuGraphClone) \
  X(cuGraphNodeFindInClone) \
  X(cuGraphAddMemAllocNode) \
  X(cuGraphAddMemFreeNode) \
  X(cuGraphMemAllocNodeGetParams) \
  X(cuGraphAddEventRecordNode) \
  X(cuGraphAddEventWaitNode) \
  X(cuGraphGetNodes) \
  X(cuGraphGetRootNodes) \
  X(cuGraphGetEdges) \
  X(cuGraphNodeGetType) \
  X(cuGraphNodeGetDependencies) \
  X(cuGraphNodeGetDependentNodes) \
  X(cuGraphDestroyNode) \
  X(cuGraphAddDependencies) \
  X(cuGraphRemoveDependencies) \
  X(cuGraphHostNodeSetParams) \
  X(cuGraphHostNodeGetParams) \
  X(cuGraphInstantiateWithFlags) \
  X(cuGraphInstantiateWithParams) \
  X(cuGraphUpload) \
  X(cuGraphLaunch) \
  X(cuGraphExecDestroy) \
  X(cuUserObjectCreate) \
  X(cuUserObjectRetain) \
  X(cuUserObjectRelease) \
  X(cuGraphRetainUserObject) \
  X(cuGraphReleaseUserObject)
