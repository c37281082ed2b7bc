#include "tests/sim/entry_point_calls.h"

#include <cstdlib>

#include "harness/driver/device_memory_properties.h"
#include "harness/driver/device_work.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

void CUDA_CB do_nothing_callback(CUstream, CUresult, void*) {}

CUresult ok() { return CUDA_SUCCESS; }

// Stops at the first failing step.
#define STEP(call)                                       \
  do {                                                   \
    if (CUresult step_rc = (call); step_rc != CUDA_SUCCESS) return step_rc; \
  } while (false)

CUresult need_event(CallSite& s) {
  const DriverTable& d = driver();
  STEP(d.cuEventCreate(&s.event, 0));
  STEP(d.cuEventCreate(&s.second_event, 0));
  STEP(d.cuEventRecord(s.event, s.other_stream));
  STEP(d.cuEventRecord(s.second_event, s.other_stream));
  return d.cuStreamSynchronize(s.other_stream);
}

CUresult need_memory(CallSite& s) {
  const DriverTable& d = driver();
  STEP(d.cuMemAlloc(&s.device_memory, 4096));
  STEP(d.cuMemAllocHost(&s.pinned, 4096));
  s.host_buffer = std::aligned_alloc(4096, 8192);
  return s.host_buffer != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult need_pool(CallSite& s) { return driver().cuDeviceGetDefaultMemPool(&s.pool, s.device); }

CUresult need_module(CallSite& s) {
  const DriverTable& d = driver();
  STEP(d.cuModuleLoadData(&s.module, test_kernels_ptx()));
  return d.cuModuleGetFunction(&s.function, s.module, "gilsan_spin_ns");
}

CUresult need_library(CallSite& s) {
  const DriverTable& d = driver();
  STEP(d.cuLibraryLoadData(&s.library, test_kernels_ptx(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  return d.cuLibraryGetKernel(&s.kernel, s.library, "gilsan_spin_ns");
}

CUresult need_graph(CallSite& s) {
  const DriverTable& d = driver();
  STEP(d.cuGraphCreate(&s.graph, 0));
  CUDA_HOST_NODE_PARAMS params{&do_nothing, nullptr};
  return d.cuGraphAddHostNode(&s.host_node, s.graph, nullptr, 0, &params);
}

CUresult need_graph_allocation(CallSite& s) {
  STEP(need_graph(s));
  CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(s.device, 4096);
  STEP(driver().cuGraphAddMemAllocNode(&s.allocation_node, s.graph, nullptr, 0, &params));
  s.graph_allocation = params.dptr;
  return CUDA_SUCCESS;
}

CUresult need_graph_with_empty_node(CallSite& s) {
  STEP(need_graph(s));
  return driver().cuGraphAddEmptyNode(&s.empty_node, s.graph, nullptr, 0);
}

CUresult need_exec(CallSite& s) {
  STEP(need_graph(s));
  return driver().cuGraphInstantiateWithFlags(&s.exec, s.graph, 0);
}

CUresult need_user_object(CallSite& s, unsigned references) {
  return driver().cuUserObjectCreate(&s.user_object, nullptr, &do_nothing, references,
                                     CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
}

std::vector<EntryPointCall> make_calls() {
  const DriverTable* dp = &driver();
  auto d = [dp]() -> const DriverTable& { return *dp; };
  std::vector<EntryPointCall> calls = {
      // Initialization and devices.
      {"cuInit", {}, [=](CallSite&) { return d().cuInit(0); }},
      {"cuDriverGetVersion", {}, [=](CallSite&) { int v = 0; return d().cuDriverGetVersion(&v); }},
      {"cuDeviceGetCount", {}, [=](CallSite&) { int n = 0; return d().cuDeviceGetCount(&n); }},
      {"cuDeviceGet", {}, [=](CallSite&) { CUdevice device = 0; return d().cuDeviceGet(&device, 0); }},
      {"cuDeviceGetName", {}, [=](CallSite& s) { char name[128]; return d().cuDeviceGetName(name, 128, s.device); }},
      {"cuDeviceGetUuid", {}, [=](CallSite& s) { CUuuid uuid; return d().cuDeviceGetUuid(&uuid, s.device); }},
      {"cuDeviceGetAttribute", {}, [=](CallSite& s) {
         int value = 0;
         return d().cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.device);
       }},
      {"cuDeviceTotalMem", {}, [=](CallSite& s) { size_t bytes = 0; return d().cuDeviceTotalMem(&bytes, s.device); }},
      {"cuDeviceGetDefaultMemPool", {}, [=](CallSite& s) { CUmemoryPool p; return d().cuDeviceGetDefaultMemPool(&p, s.device); }},
      {"cuDeviceGetMemPool", {}, [=](CallSite& s) { CUmemoryPool p; return d().cuDeviceGetMemPool(&p, s.device); }},
      {"cuDeviceSetMemPool", need_pool, [=](CallSite& s) { return d().cuDeviceSetMemPool(s.device, s.pool); }},
      // Contexts.
      {"cuDevicePrimaryCtxRetain", {}, [=](CallSite& s) { CUcontext c; return d().cuDevicePrimaryCtxRetain(&c, s.device); }},
      // The site's context is a created one, so the primary context's only reference is the one taken
      // here, and the release destroys it.
      {"cuDevicePrimaryCtxRelease", [=](CallSite& s) { CUcontext c; return d().cuDevicePrimaryCtxRetain(&c, s.device); },
       [=](CallSite& s) { return d().cuDevicePrimaryCtxRelease(s.device); }, false, false, true},
      {"cuCtxCreate", {}, [=](CallSite& s) { CUcontext c; return d().cuCtxCreate(&c, nullptr, 0, s.device); }},
      {"cuCtxDestroy",
       [=](CallSite& s) {
         // From inside, a spare context; from outside, the host function's own, which is what blocks.
         if (!s.inside) return ok();
         STEP(d().cuCtxCreate(&s.spare_context, nullptr, 0, s.device));
         CUcontext popped;
         return d().cuCtxPopCurrent(&popped);
       },
       [=](CallSite& s) { return d().cuCtxDestroy(s.inside ? s.spare_context : s.context); }, false, true},
      {"cuCtxPushCurrent", {}, [=](CallSite& s) { return d().cuCtxPushCurrent(s.context); }},
      {"cuCtxPopCurrent", [=](CallSite& s) { return d().cuCtxPushCurrent(s.context); },
       [=](CallSite&) { CUcontext c; return d().cuCtxPopCurrent(&c); }},
      {"cuCtxSetCurrent", {}, [=](CallSite& s) { return d().cuCtxSetCurrent(s.context); }},
      {"cuCtxGetCurrent", {}, [=](CallSite&) { CUcontext c; return d().cuCtxGetCurrent(&c); }},
      {"cuCtxGetDevice", {}, [=](CallSite&) { CUdevice device; return d().cuCtxGetDevice(&device); }},
      {"cuCtxGetStreamPriorityRange", {},
       [=](CallSite&) { int least, greatest; return d().cuCtxGetStreamPriorityRange(&least, &greatest); }},
      {"cuCtxSynchronize", {}, [=](CallSite&) { return d().cuCtxSynchronize(); }, true, true},
      // Streams and host functions.
      {"cuStreamCreate", {}, [=](CallSite&) { CUstream s; return d().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING); }},
      {"cuStreamCreateWithPriority", {},
       [=](CallSite&) { CUstream s; return d().cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, 0); }},
      {"cuStreamDestroy", [=](CallSite& s) { return d().cuStreamCreate(&s.spare_stream, CU_STREAM_NON_BLOCKING); },
       [=](CallSite& s) { return d().cuStreamDestroy(s.spare_stream); }},
      {"cuStreamSynchronize", {}, [=](CallSite& s) { return d().cuStreamSynchronize(s.other_stream); }},
      {"cuStreamQuery", {}, [=](CallSite& s) { return d().cuStreamQuery(s.other_stream); }},
      {"cuStreamWaitEvent", need_event, [=](CallSite& s) { return d().cuStreamWaitEvent(s.other_stream, s.event, 0); }},
      {"cuStreamGetCtx", {}, [=](CallSite& s) { CUcontext c; return d().cuStreamGetCtx(s.other_stream, &c); }},
      {"cuStreamGetFlags", {}, [=](CallSite& s) { unsigned f; return d().cuStreamGetFlags(s.other_stream, &f); }},
      {"cuStreamGetPriority", {}, [=](CallSite& s) { int p; return d().cuStreamGetPriority(s.other_stream, &p); }},
      {"cuStreamAddCallback", {},
       [=](CallSite& s) { return d().cuStreamAddCallback(s.other_stream, &do_nothing_callback, nullptr, 0); }},
      {"cuLaunchHostFunc", {}, [=](CallSite& s) { return d().cuLaunchHostFunc(s.other_stream, &do_nothing, nullptr); }},
      // Stream capture, on a spare stream.
      {"cuStreamBeginCapture", [=](CallSite& s) { return d().cuStreamCreate(&s.spare_stream, CU_STREAM_NON_BLOCKING); },
       [=](CallSite& s) { return d().cuStreamBeginCapture(s.spare_stream, CU_STREAM_CAPTURE_MODE_RELAXED); }},
      {"cuStreamEndCapture",
       [=](CallSite& s) {
         STEP(d().cuStreamCreate(&s.spare_stream, CU_STREAM_NON_BLOCKING));
         return d().cuStreamBeginCapture(s.spare_stream, CU_STREAM_CAPTURE_MODE_RELAXED);
       },
       [=](CallSite& s) { CUgraph g; return d().cuStreamEndCapture(s.spare_stream, &g); }},
      {"cuStreamIsCapturing", {},
       [=](CallSite& s) { CUstreamCaptureStatus st; return d().cuStreamIsCapturing(s.other_stream, &st); }},
      {"cuStreamGetCaptureInfo", {}, [=](CallSite& s) {
         CUstreamCaptureStatus st;
         return d().cuStreamGetCaptureInfo(s.other_stream, &st, nullptr, nullptr, nullptr, nullptr, nullptr);
       }},
      // Events.
      {"cuEventCreate", {}, [=](CallSite&) { CUevent e; return d().cuEventCreate(&e, 0); }},
      {"cuEventDestroy", need_event, [=](CallSite& s) { return d().cuEventDestroy(s.second_event); }},
      {"cuEventRecord", need_event, [=](CallSite& s) { return d().cuEventRecord(s.event, s.other_stream); }},
      {"cuEventQuery", need_event, [=](CallSite& s) { return d().cuEventQuery(s.event); }},
      {"cuEventSynchronize", need_event, [=](CallSite& s) { return d().cuEventSynchronize(s.event); }},
      {"cuEventElapsedTime", need_event,
       [=](CallSite& s) { float ms; return d().cuEventElapsedTime(&ms, s.event, s.second_event); }},
      // Memory.
      {"cuMemGetInfo", {}, [=](CallSite&) { size_t f, t; return d().cuMemGetInfo(&f, &t); }},
      {"cuMemAlloc", {}, [=](CallSite&) { CUdeviceptr p; return d().cuMemAlloc(&p, 4096); }},
      {"cuMemFree", need_memory, [=](CallSite& s) { return d().cuMemFree(s.device_memory); }},
      {"cuMemAllocHost", {}, [=](CallSite&) { void* p; return d().cuMemAllocHost(&p, 4096); }},
      {"cuMemFreeHost", need_memory, [=](CallSite& s) { return d().cuMemFreeHost(s.pinned); }},
      {"cuMemHostAlloc", {}, [=](CallSite&) { void* p; return d().cuMemHostAlloc(&p, 4096, 0); }},
      {"cuMemHostRegister", need_memory, [=](CallSite& s) { return d().cuMemHostRegister(s.host_buffer, 8192, 0); }},
      {"cuMemHostUnregister",
       [=](CallSite& s) {
         STEP(need_memory(s));
         return d().cuMemHostRegister(s.host_buffer, 8192, 0);
       },
       [=](CallSite& s) { return d().cuMemHostUnregister(s.host_buffer); }},
      {"cuMemAllocManaged", {}, [=](CallSite&) { CUdeviceptr p; return d().cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL); }},
      {"cuPointerGetAttribute", need_memory, [=](CallSite& s) {
         unsigned type = 0;
         return d().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, s.device_memory);
       }},
      {"cuPointerGetAttributes", need_memory, [=](CallSite& s) {
         unsigned type = 0;
         CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
         void* answer = &type;
         return d().cuPointerGetAttributes(1, &attribute, &answer, s.device_memory);
       }},
      {"cuMemAllocAsync", {}, [=](CallSite& s) { CUdeviceptr p; return d().cuMemAllocAsync(&p, 4096, s.other_stream); }},
      {"cuMemFreeAsync",
       [=](CallSite& s) {
         STEP(d().cuMemAllocAsync(&s.pool_memory, 4096, s.other_stream));
         return d().cuStreamSynchronize(s.other_stream);
       },
       [=](CallSite& s) { return d().cuMemFreeAsync(s.pool_memory, s.other_stream); }},
      {"cuMemAllocFromPoolAsync", need_pool,
       [=](CallSite& s) { CUdeviceptr p; return d().cuMemAllocFromPoolAsync(&p, 4096, s.pool, s.other_stream); }},
      {"cuMemPoolTrimTo", need_pool, [=](CallSite& s) { return d().cuMemPoolTrimTo(s.pool, 0); }},
      {"cuMemPoolCreate", {}, [=](CallSite& s) {
         CUmemPoolProps props = pinned_device_pool_properties(s.device);
         CUmemoryPool p;
         return d().cuMemPoolCreate(&p, &props);
       }},
      {"cuMemPoolDestroy",
       [=](CallSite& s) {
         CUmemPoolProps props = pinned_device_pool_properties(s.device);
         return d().cuMemPoolCreate(&s.pool, &props);
       },
       [=](CallSite& s) { return d().cuMemPoolDestroy(s.pool); }},
      {"cuMemPoolSetAttribute", need_pool, [=](CallSite& s) {
         cuuint64_t threshold = 0;
         return d().cuMemPoolSetAttribute(s.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
       }},
      {"cuMemPoolGetAttribute", need_pool, [=](CallSite& s) {
         cuuint64_t used = 0;
         return d().cuMemPoolGetAttribute(s.pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
       }},
      {"cuMemcpyHtoD", need_memory, [=](CallSite& s) { return d().cuMemcpyHtoD(s.device_memory, s.host_buffer, 256); }},
      {"cuMemcpyDtoH", need_memory, [=](CallSite& s) { return d().cuMemcpyDtoH(s.host_buffer, s.device_memory, 256); }},
      {"cuMemcpyDtoD", need_memory,
       [=](CallSite& s) { return d().cuMemcpyDtoD(s.device_memory + 1024, s.device_memory, 256); }},
      {"cuMemcpyHtoDAsync", need_memory,
       [=](CallSite& s) { return d().cuMemcpyHtoDAsync(s.device_memory, s.pinned, 256, s.other_stream); }},
      {"cuMemcpyDtoHAsync", need_memory,
       [=](CallSite& s) { return d().cuMemcpyDtoHAsync(s.pinned, s.device_memory, 256, s.other_stream); }},
      {"cuMemcpyDtoDAsync", need_memory,
       [=](CallSite& s) { return d().cuMemcpyDtoDAsync(s.device_memory + 1024, s.device_memory, 256, s.other_stream); }},
      {"cuMemsetD8", need_memory, [=](CallSite& s) { return d().cuMemsetD8(s.device_memory, 0, 256); }},
      {"cuMemsetD32", need_memory, [=](CallSite& s) { return d().cuMemsetD32(s.device_memory, 0, 64); }},
      {"cuMemsetD8Async", need_memory,
       [=](CallSite& s) { return d().cuMemsetD8Async(s.device_memory, 0, 256, s.other_stream); }},
      {"cuMemsetD32Async", need_memory,
       [=](CallSite& s) { return d().cuMemsetD32Async(s.device_memory, 0, 64, s.other_stream); }},
      // Modules, libraries, kernels.
      {"cuModuleLoadData", {}, [=](CallSite&) { CUmodule m; return d().cuModuleLoadData(&m, test_kernels_ptx()); }},
      {"cuModuleUnload", need_module, [=](CallSite& s) { return d().cuModuleUnload(s.module); }},
      {"cuModuleGetFunction", need_module,
       [=](CallSite& s) { CUfunction f; return d().cuModuleGetFunction(&f, s.module, "gilsan_fill_u32"); }},
      {"cuLibraryLoadData", {}, [=](CallSite&) {
         CUlibrary l;
         return d().cuLibraryLoadData(&l, test_kernels_ptx(), nullptr, nullptr, 0, nullptr, nullptr, 0);
       }},
      {"cuLibraryUnload", need_library, [=](CallSite& s) { return d().cuLibraryUnload(s.library); }},
      {"cuLibraryGetKernel", need_library,
       [=](CallSite& s) { CUkernel k; return d().cuLibraryGetKernel(&k, s.library, "gilsan_fill_u32"); }},
      {"cuKernelGetFunction", need_library, [=](CallSite& s) { CUfunction f; return d().cuKernelGetFunction(&f, s.kernel); }},
      {"cuLaunchKernel", need_module, [=](CallSite& s) {
         return d().cuLaunchKernel(s.function, 1, 1, 1, 1, 1, 1, 0, s.other_stream, s.spin_params, nullptr);
       }},
      {"cuLaunchKernelEx", need_module, [=](CallSite& s) {
         CUlaunchConfig config{};
         config.gridDimX = config.gridDimY = config.gridDimZ = 1;
         config.blockDimX = config.blockDimY = config.blockDimZ = 1;
         config.hStream = s.other_stream;
         return d().cuLaunchKernelEx(&config, s.function, s.spin_params, nullptr);
       }},
      // Graphs.
      {"cuGraphCreate", {}, [=](CallSite&) { CUgraph g; return d().cuGraphCreate(&g, 0); }},
      {"cuGraphDestroy", need_graph, [=](CallSite& s) { return d().cuGraphDestroy(s.graph); }},
      {"cuGraphAddHostNode", need_graph, [=](CallSite& s) {
         CUgraphNode n;
         CUDA_HOST_NODE_PARAMS params{&do_nothing, nullptr};
         return d().cuGraphAddHostNode(&n, s.graph, &s.host_node, 1, &params);
       }},
      {"cuGraphAddKernelNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_module(s);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         CUDA_KERNEL_NODE_PARAMS params{};
         params.func = s.function;
         params.gridDimX = params.gridDimY = params.gridDimZ = 1;
         params.blockDimX = params.blockDimY = params.blockDimZ = 1;
         params.kernelParams = s.spin_params;
         return d().cuGraphAddKernelNode(&n, s.graph, nullptr, 0, &params);
       }},
      {"cuGraphAddMemcpyNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_memory(s);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         CUDA_MEMCPY3D copy{};
         copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
         copy.srcDevice = s.device_memory;
         copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
         copy.dstDevice = s.device_memory + 2048;
         copy.WidthInBytes = 256;
         copy.Height = 1;
         copy.Depth = 1;
         return d().cuGraphAddMemcpyNode(&n, s.graph, nullptr, 0, &copy, s.context);
       }},
      {"cuGraphAddMemsetNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_memory(s);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         CUDA_MEMSET_NODE_PARAMS params{};
         params.dst = s.device_memory;
         params.elementSize = 1;
         params.width = 256;
         params.height = 1;
         return d().cuGraphAddMemsetNode(&n, s.graph, nullptr, 0, &params, s.context);
       }},
      {"cuGraphAddNode", need_graph, [=](CallSite& s) {
         CUgraphNode n;
         CUgraphNodeParams params{};
         params.type = CU_GRAPH_NODE_TYPE_EMPTY;
         return d().cuGraphAddNode(&n, s.graph, &s.host_node, nullptr, 1, &params);
       }},
      {"cuGraphHostNodeGetParams", need_graph, [=](CallSite& s) {
         CUDA_HOST_NODE_PARAMS params{};
         return d().cuGraphHostNodeGetParams(s.host_node, &params);
       }},
      {"cuStreamBeginCaptureToGraph", need_graph, [=](CallSite& s) {
         return d().cuStreamBeginCaptureToGraph(s.other_stream, s.graph, &s.host_node, nullptr, 1,
                                                CU_STREAM_CAPTURE_MODE_RELAXED);
       }},
      {"cuStreamUpdateCaptureDependencies",
       [=](CallSite& s) {
         STEP(d().cuStreamBeginCapture(s.other_stream, CU_STREAM_CAPTURE_MODE_RELAXED));
         return d().cuLaunchHostFunc(s.other_stream, &do_nothing, nullptr);
       },
       [=](CallSite& s) {
         return d().cuStreamUpdateCaptureDependencies(s.other_stream, nullptr, nullptr, 0,
                                                      CU_STREAM_SET_CAPTURE_DEPENDENCIES);
       }},
      {"cuGraphConditionalHandleCreate", need_graph, [=](CallSite& s) {
         CUgraphConditionalHandle handle;
         return d().cuGraphConditionalHandleCreate(&handle, s.graph, s.context, 0, 0);
       }},
      {"cuGraphAddChildGraphNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return d().cuGraphCreate(&s.second_graph, 0);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         return d().cuGraphAddChildGraphNode(&n, s.graph, nullptr, 0, s.second_graph);
       }},
      {"cuGraphChildGraphNodeGetGraph",
       [=](CallSite& s) {
         STEP(need_graph(s));
         STEP(d().cuGraphCreate(&s.second_graph, 0));
         return d().cuGraphAddChildGraphNode(&s.empty_node, s.graph, nullptr, 0, s.second_graph);
       },
       [=](CallSite& s) {
         CUgraph held;
         return d().cuGraphChildGraphNodeGetGraph(s.empty_node, &held);
       }},
      {"cuGraphClone", need_graph, [=](CallSite& s) {
         CUgraph clone;
         return d().cuGraphClone(&clone, s.graph);
       }},
      {"cuGraphNodeFindInClone",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return d().cuGraphClone(&s.second_graph, s.graph);
       },
       [=](CallSite& s) {
         CUgraphNode in_clone;
         return d().cuGraphNodeFindInClone(&in_clone, s.host_node, s.second_graph);
       }},
      {"cuGraphAddMemAllocNode", need_graph, [=](CallSite& s) {
         CUgraphNode n;
         CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(s.device, 4096);
         return d().cuGraphAddMemAllocNode(&n, s.graph, nullptr, 0, &params);
       }},
      {"cuGraphAddMemFreeNode", need_graph_allocation, [=](CallSite& s) {
         CUgraphNode n;
         return d().cuGraphAddMemFreeNode(&n, s.graph, nullptr, 0, s.graph_allocation);
       }},
      {"cuGraphMemAllocNodeGetParams", need_graph_allocation, [=](CallSite& s) {
         CUDA_MEM_ALLOC_NODE_PARAMS params{};
         return d().cuGraphMemAllocNodeGetParams(s.allocation_node, &params);
       }},
      {"cuGraphAddEventRecordNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_event(s);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         return d().cuGraphAddEventRecordNode(&n, s.graph, &s.host_node, 1, s.event);
       }},
      {"cuGraphAddEventWaitNode",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_event(s);
       },
       [=](CallSite& s) {
         CUgraphNode n;
         return d().cuGraphAddEventWaitNode(&n, s.graph, nullptr, 0, s.event);
       }},
      {"cuGraphGetNodes", need_graph, [=](CallSite& s) {
         size_t count = 0;
         return d().cuGraphGetNodes(s.graph, nullptr, &count);
       }},
      {"cuGraphGetRootNodes", need_graph, [=](CallSite& s) {
         CUgraphNode roots[1];
         size_t count = 1;
         return d().cuGraphGetRootNodes(s.graph, roots, &count);
       }},
      {"cuGraphGetEdges", need_graph, [=](CallSite& s) {
         size_t count = 0;
         return d().cuGraphGetEdges(s.graph, nullptr, nullptr, nullptr, &count);
       }},
      {"cuGraphNodeGetType", need_graph, [=](CallSite& s) {
         CUgraphNodeType type;
         return d().cuGraphNodeGetType(s.host_node, &type);
       }},
      {"cuGraphNodeGetDependencies", need_graph, [=](CallSite& s) {
         size_t count = 0;
         return d().cuGraphNodeGetDependencies(s.host_node, nullptr, nullptr, &count);
       }},
      {"cuGraphNodeGetDependentNodes", need_graph, [=](CallSite& s) {
         size_t count = 0;
         return d().cuGraphNodeGetDependentNodes(s.host_node, nullptr, nullptr, &count);
       }},
      {"cuGraphDestroyNode", need_graph, [=](CallSite& s) { return d().cuGraphDestroyNode(s.host_node); }},
      {"cuGraphAddDependencies", need_graph_with_empty_node, [=](CallSite& s) {
         return d().cuGraphAddDependencies(s.graph, &s.host_node, &s.empty_node, nullptr, 1);
       }},
      {"cuGraphRemoveDependencies",
       [=](CallSite& s) {
         STEP(need_graph_with_empty_node(s));
         return d().cuGraphAddDependencies(s.graph, &s.host_node, &s.empty_node, nullptr, 1);
       },
       [=](CallSite& s) { return d().cuGraphRemoveDependencies(s.graph, &s.host_node, &s.empty_node, nullptr, 1); }},
      {"cuGraphAddEmptyNode", need_graph,
       [=](CallSite& s) { CUgraphNode n; return d().cuGraphAddEmptyNode(&n, s.graph, nullptr, 0); }},
      {"cuGraphHostNodeSetParams", need_graph, [=](CallSite& s) {
         CUDA_HOST_NODE_PARAMS params{&do_nothing, &s};
         return d().cuGraphHostNodeSetParams(s.host_node, &params);
       }},
      {"cuGraphInstantiateWithFlags", need_graph,
       [=](CallSite& s) { CUgraphExec e; return d().cuGraphInstantiateWithFlags(&e, s.graph, 0); }},
      {"cuGraphInstantiateWithParams", need_graph, [=](CallSite& s) {
         CUDA_GRAPH_INSTANTIATE_PARAMS params{};
         CUgraphExec e;
         return d().cuGraphInstantiateWithParams(&e, s.graph, &params);
       }},
      {"cuGraphUpload", need_exec, [=](CallSite& s) { return d().cuGraphUpload(s.exec, s.other_stream); }},
      {"cuGraphLaunch", need_exec, [=](CallSite& s) { return d().cuGraphLaunch(s.exec, s.other_stream); }},
      {"cuGraphExecDestroy", need_exec, [=](CallSite& s) { return d().cuGraphExecDestroy(s.exec); }},
      // User objects.
      {"cuUserObjectCreate", {}, [=](CallSite&) {
         CUuserObject o;
         return d().cuUserObjectCreate(&o, nullptr, &do_nothing, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
       }},
      {"cuUserObjectRetain", [=](CallSite& s) { return need_user_object(s, 1); },
       [=](CallSite& s) { return d().cuUserObjectRetain(s.user_object, 1); }},
      {"cuUserObjectRelease", [=](CallSite& s) { return need_user_object(s, 2); },
       [=](CallSite& s) { return d().cuUserObjectRelease(s.user_object, 1); }},
      {"cuGraphRetainUserObject",
       [=](CallSite& s) {
         STEP(need_graph(s));
         return need_user_object(s, 1);
       },
       [=](CallSite& s) { return d().cuGraphRetainUserObject(s.graph, s.user_object, 1, 0); }},
      {"cuGraphReleaseUserObject",
       [=](CallSite& s) {
         STEP(need_graph(s));
         STEP(need_user_object(s, 1));
         return d().cuGraphRetainUserObject(s.graph, s.user_object, 1, 0);
       },
       [=](CallSite& s) { return d().cuGraphReleaseUserObject(s.graph, s.user_object, 1); }},
  };
  return calls;
}

}  // namespace

CallSite::~CallSite() { std::free(host_buffer); }

const std::vector<EntryPointCall>& entry_point_calls() {
  static const std::vector<EntryPointCall> calls = make_calls();
  return calls;
}

const EntryPointCall* find_entry_point_call(const std::string& name) {
  for (const EntryPointCall& call : entry_point_calls())
    if (call.name == name) return &call;
  return nullptr;
}

}  // namespace gilsan::test
