// Graphs: nodes, upload and launch (instantiation: sim_exports_graph_instantiate.cpp).
#include <cstddef>
#include <limits>
#include <vector>

#include "harness/driverhooks/driver_hooks.h"
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_module.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
namespace {

// The bytes a 3-D copy spans from its origin on one side.
std::size_t extent(std::size_t pitch, std::size_t height, const CUDA_MEMCPY3D& shape) {
  const std::size_t rows = shape.Height == 0 ? 1 : shape.Height;
  const std::size_t layers = shape.Depth == 0 ? 1 : shape.Depth;
  if (pitch == 0) pitch = shape.WidthInBytes;
  if (height == 0) height = rows;
  return (layers - 1) * pitch * height + (rows - 1) * pitch + shape.WidthInBytes;
}

CUresult check_copy_side(CUmemorytype type, const void* host, CUdeviceptr device, std::size_t origin,
                         std::size_t bytes) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return host == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: return device_accessible(device + origin, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_MEMORYTYPE_ARRAY: return SimDriver::instance().unsupported();  // CUDA arrays are not modelled
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult check_copy(const CUDA_MEMCPY3D& shape) {
  const std::size_t source_origin = shape.srcXInBytes + shape.srcY * shape.srcPitch +
                                    shape.srcZ * shape.srcPitch * shape.srcHeight;
  const std::size_t destination_origin = shape.dstXInBytes + shape.dstY * shape.dstPitch +
                                         shape.dstZ * shape.dstPitch * shape.dstHeight;
  if (CUresult rc = check_copy_side(shape.srcMemoryType, shape.srcHost, shape.srcDevice, source_origin,
                                    extent(shape.srcPitch, shape.srcHeight, shape));
      rc != CUDA_SUCCESS)
    return rc;
  return check_copy_side(shape.dstMemoryType, shape.dstHost, shape.dstDevice, destination_origin,
                         extent(shape.dstPitch, shape.dstHeight, shape));
}

CUresult add(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
             NodeKind kind, WorkItem work) {
  auto& driver = SimDriver::instance();
  std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
  if (!graph || phGraphNode == nullptr) return CUDA_ERROR_INVALID_VALUE;
  SimGraphNode* node = nullptr;
  if (CUresult rc = add_node(*graph, kind, std::move(work), dependencies, numDependencies, node); rc != CUDA_SUCCESS)
    return rc;
  *phGraphNode = node->handle();
  return CUDA_SUCCESS;
}

CUresult add_event_node(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                        size_t numDependencies, CUevent event, NodeKind kind) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimEvent> found = driver.events.find(event);
  if (!found) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = add(phGraphNode, hGraph, dependencies, numDependencies, kind, NoWork{}); rc != CUDA_SUCCESS)
    return rc;
  driver.graph_nodes.find(*phGraphNode)->event = std::move(found);
  return CUDA_SUCCESS;
}

}  // namespace

namespace api {

CUresult graph_upload(CUgraphExec hGraphExec, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuGraphUpload"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphExec> exec = driver.graph_execs.find(hGraphExec);
    if (!exec) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    return upload(lock, *stream);
  }));
}

CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuGraphLaunch"), on_stream(hStream));
  if (api.refused()) return api.result();
  // Each host node of the launch, told to the observer once the lock is gone.
  std::vector<GilsanSimHostFunction> enqueued;
  const CUresult rc = guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphExec> exec = driver.graph_execs.find(hGraphExec);
    if (!exec) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    // Launching a graph into a capture would need child-graph nodes, which are not modelled.
    if (stream->capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    std::vector<GilsanSimHostFunction> runs;
    for (const WorkItem& step : exec->steps) {
      if (const auto* call = std::get_if<HostCall>(&step))
        runs.push_back({call->run_key, stream->context->handle(), stream->handle(), call->fn, call->user_data,
                        call->stream_callback});
    }
    // Pending on the board before the launch queues them: the callback thread may start one at once.
    // A node's id is the same at every launch: a failed launch takes back only the notes it placed.
    std::vector<bool> placed;
    for (const GilsanSimHostFunction& run : runs) {
      placed.push_back(driverhooks::host_function_pending(run, kBoardDriverName));
    }
    const auto take_back = [&] {
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (placed[i]) driverhooks::host_function_not_launched(runs[i], kBoardDriverName);
      }
    };
    CUresult launched = CUDA_SUCCESS;
    try {
      launched = launch(lock, exec, *stream);
    } catch (...) {  // bad_alloc, which guarded() answers for
      take_back();
      throw;
    }
    if (launched != CUDA_SUCCESS) {
      take_back();
      return launched;
    }
    enqueued = std::move(runs);
    return CUDA_SUCCESS;
  });
  for (const GilsanSimHostFunction& host_function : enqueued) driverhooks::host_function_enqueued(host_function);
  return api.finish(rc);
}

}  // namespace api
}  // namespace gilsan::sim

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
  ApiScope api(entry("cuGraphCreate"), on_current_context());
  if (api.refused()) return api.result();
  if (phGraph == nullptr || flags != 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    auto graph = std::make_shared<SimGraph>();
    driver.graphs.add(graph);
    *phGraph = graph->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph) {
  ApiScope api(entry("cuGraphDestroy"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    // The graph's user-object references go with it; executable graphs hold their own.
    std::shared_ptr<SimGraph> graph = driver.graphs.remove(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    forget_graph_nodes(*graph);
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                    size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphAddHostNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr || nodeParams->fn == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    HostCall call;
    call.fn = nodeParams->fn;
    call.user_data = nodeParams->userData;
    call.run_key = SimDriver::instance().take_run_key();
    return add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::Host, call);
  }));
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphAddKernelNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  const CUDA_KERNEL_NODE_PARAMS& p = *nodeParams;
  if (p.gridDimX == 0 || p.gridDimY == 0 || p.gridDimZ == 0 || p.blockDimX == 0 || p.blockDimY == 0 ||
      p.blockDimZ == 0)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimContext> context = p.ctx != nullptr ? find_context(p.ctx) : current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    CUfunction handle = p.func != nullptr ? p.func : reinterpret_cast<CUfunction>(p.kern);
    std::shared_ptr<SimFunction> function = resolve_function(handle, *context);
    if (!function) return CUDA_ERROR_INVALID_VALUE;
    KernelRun run;
    if (CUresult rc = pack_kernel_arguments(*function->kernel, p.kernelParams, p.extra, run); rc != CUDA_SUCCESS)
      return rc;
    return add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::Kernel, run);
  }));
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext) {
  ApiScope api(entry("cuGraphAddMemcpyNode"), on_current_context());
  if (api.refused()) return api.result();
  if (copyParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    if (CUresult rc = check_copy(*copyParams); rc != CUDA_SUCCESS) return rc;
    return add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::Memcpy, Copy{*copyParams, nullptr});
  }));
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  ApiScope api(entry("cuGraphAddMemsetNode"), on_current_context());
  if (api.refused()) return api.result();
  if (memsetParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  const CUDA_MEMSET_NODE_PARAMS& p = *memsetParams;
  const unsigned size = p.elementSize;
  if ((size != 1 && size != 2 && size != 4) || p.width == 0 || p.height == 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  const std::size_t max_elements = std::numeric_limits<std::size_t>::max() / 4;
  if (p.width > max_elements || p.height > max_elements / p.width) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (p.height > 1 && p.pitch < p.width * size) return api.finish(CUDA_ERROR_INVALID_VALUE);  // rows overlap
  // Rows with a gap between them (a pitch wider than a row) are not modeled: one fill is one range.
  if (p.height > 1 && p.pitch != p.width * size) return api.finish(CUDA_ERROR_NOT_SUPPORTED);
  const std::size_t count = p.width * p.height;
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    if (!device_accessible(p.dst, count * size)) return CUDA_ERROR_INVALID_VALUE;
    return add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::Memset,
               Fill{p.dst, p.value, size, count});
  }));
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                        size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphAddMemAllocNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr || nodeParams->bytesize == 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  const CUmemPoolProps& props = nodeParams->poolProps;
  // Graph memory is device memory of one device, pinned (the only kind the driver allows here).
  if (props.allocType != CU_MEM_ALLOCATION_TYPE_PINNED || props.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    if (props.location.id != context->device->ordinal) return CUDA_ERROR_INVALID_VALUE;
    std::uintptr_t block = 0;
    if (CUresult rc = allocate(MemoryKind::Device, nodeParams->bytesize, *context, nullptr, block); rc != CUDA_SUCCESS)
      return rc;
    if (CUresult rc = add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::MemAlloc, NoWork{});
        rc != CUDA_SUCCESS) {
      free_allocation(block, {MemoryKind::Device});
      return rc;
    }
    nodeParams->dptr = block;
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(*phGraphNode);
    node->allocation = block;
    node->allocation_params = *nodeParams;
    node->allocation_params.accessDescs = nullptr;  // the caller's array: not kept past the call
    node->allocation_params.accessDescCount = 0;
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS* params_out) {
  ApiScope api(entry("cuGraphMemAllocNodeGetParams"), on_current_context());
  if (api.refused()) return api.result();
  if (params_out == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node || node->kind != NodeKind::MemAlloc) return CUDA_ERROR_INVALID_VALUE;
    *params_out = node->allocation_params;
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                       size_t numDependencies, CUdeviceptr dptr) {
  ApiScope api(entry("cuGraphAddMemFreeNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    // Only the start of a graph allocation (of any graph) can be freed by a free node.
    bool graph_allocation = false;
    driver.graph_nodes.for_each([&](const std::shared_ptr<SimGraphNode>& node) {
      if (node->kind == NodeKind::MemAlloc && node->allocation == dptr && dptr != 0) graph_allocation = true;
    });
    if (!graph_allocation) return CUDA_ERROR_INVALID_VALUE;
    // Freed at most once in a graph.
    if (std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph)) {
      for (const auto& node : graph->nodes)
        if (node->kind == NodeKind::MemFree && node->allocation == dptr) return CUDA_ERROR_INVALID_VALUE;
    }
    if (CUresult rc = add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::MemFree, NoWork{});
        rc != CUDA_SUCCESS)
      return rc;
    driver.graph_nodes.find(*phGraphNode)->allocation = dptr;
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                           size_t numDependencies, CUevent event) {
  ApiScope api(entry("cuGraphAddEventRecordNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event, NodeKind::EventRecord);
  }));
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                         size_t numDependencies, CUevent event) {
  ApiScope api(entry("cuGraphAddEventWaitNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event, NodeKind::EventWait);
  }));
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                     size_t numDependencies) {
  ApiScope api(entry("cuGraphAddEmptyNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add(phGraphNode, hGraph, dependencies, numDependencies, NodeKind::Empty, NoWork{});
  }));
}

CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphHostNodeSetParams"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr || nodeParams->fn == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
  if (!node || node->kind != NodeKind::Host) return api.finish(CUDA_ERROR_INVALID_VALUE);
  // Executable graphs already instantiated keep the parameters they were made with.
  auto& call = std::get<HostCall>(node->work);
  call.fn = nodeParams->fn;
  call.user_data = nodeParams->userData;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) {
  ApiScope api(entry("cuGraphExecDestroy"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  // Launches still queued keep the executable graph, and its user-object references, until they end.
  return api.finish(driver.graph_execs.remove(hGraphExec) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

}  // extern "C"
