// Graphs: nodes, upload and launch (instantiation: sim_exports_graph_instantiate.cpp).
#include <cstddef>
#include <vector>

#include "harness/driverhooks/driver_hooks.h"
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_graph_nodes.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_module.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
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
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_host_node({phGraphNode, hGraph, dependencies, numDependencies}, nodeParams->fn, nodeParams->userData);
  }));
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphAddKernelNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_kernel_node({phGraphNode, hGraph, dependencies, numDependencies}, *nodeParams);
  }));
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext) {
  ApiScope api(entry("cuGraphAddMemcpyNode"), on_current_context());
  if (api.refused()) return api.result();
  if (copyParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_memcpy_node({phGraphNode, hGraph, dependencies, numDependencies}, *copyParams);
  }));
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  ApiScope api(entry("cuGraphAddMemsetNode"), on_current_context());
  if (api.refused()) return api.result();
  if (memsetParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_memset_node({phGraphNode, hGraph, dependencies, numDependencies}, *memsetParams);
  }));
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                        size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphAddMemAllocNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_mem_alloc_node({phGraphNode, hGraph, dependencies, numDependencies}, *nodeParams);
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
    Lock lock(SimDriver::instance().mutex);
    return add_mem_free_node({phGraphNode, hGraph, dependencies, numDependencies}, dptr);
  }));
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                           size_t numDependencies, CUevent event) {
  ApiScope api(entry("cuGraphAddEventRecordNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_event_node({phGraphNode, hGraph, dependencies, numDependencies}, event, NodeKind::EventRecord);
  }));
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                         size_t numDependencies, CUevent event) {
  ApiScope api(entry("cuGraphAddEventWaitNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_event_node({phGraphNode, hGraph, dependencies, numDependencies}, event, NodeKind::EventWait);
  }));
}

// The generic form, for the kinds of node the sim models; its parameters' later versions are the same
// fields as the per-kind entry points' structures. External-semaphore and memory-operation nodes are not
// modeled; conditional nodes are built but not run (sim_graph.h).
CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                   const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                   CUgraphNodeParams* nodeParams) {
  ApiScope api(entry("cuGraphAddNode"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (!default_edges(dependencyData, numDependencies)) return api.finish(SimDriver::instance().unsupported());
  CUgraphNodeParams& p = *nodeParams;
  return api.finish(guarded([&]() -> CUresult {
    Lock lock(SimDriver::instance().mutex);
    const NodePlace place{phGraphNode, hGraph, dependencies, numDependencies};
    switch (p.type) {
      case CU_GRAPH_NODE_TYPE_EMPTY: return add_empty_node(place);
      case CU_GRAPH_NODE_TYPE_HOST: return add_host_node(place, p.host.fn, p.host.userData);
      case CU_GRAPH_NODE_TYPE_KERNEL: {
        const CUDA_KERNEL_NODE_PARAMS_v3& k = p.kernel;
        const CUDA_KERNEL_NODE_PARAMS kernel{k.func,      k.gridDimX,  k.gridDimY,      k.gridDimZ,
                                             k.blockDimX, k.blockDimY, k.blockDimZ,     k.sharedMemBytes,
                                             k.kernelParams, k.extra,  k.kern,          k.ctx};
        return add_kernel_node(place, kernel);
      }
      case CU_GRAPH_NODE_TYPE_MEMCPY: return add_memcpy_node(place, p.memcpy.copyParams);
      case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS_v2& m = p.memset;
        return add_memset_node(place, CUDA_MEMSET_NODE_PARAMS{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height});
      }
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS alloc{p.alloc.poolProps, p.alloc.accessDescs, p.alloc.accessDescCount,
                                         p.alloc.bytesize, 0};
        const CUresult rc = add_mem_alloc_node(place, alloc);
        if (rc == CUDA_SUCCESS) p.alloc.dptr = alloc.dptr;  // an output, in the caller's structure
        return rc;
      }
      case CU_GRAPH_NODE_TYPE_MEM_FREE: return add_mem_free_node(place, p.free.dptr);
      case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return add_event_node(place, p.eventRecord.event, NodeKind::EventRecord);
      case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return add_event_node(place, p.eventWait.event, NodeKind::EventWait);
      case CU_GRAPH_NODE_TYPE_CONDITIONAL: return add_conditional_node(place, p.conditional);
      case CU_GRAPH_NODE_TYPE_GRAPH:
        // Moving the graph into the node (instead of copying it) is not modeled.
        if (p.graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE) return SimDriver::instance().unsupported();
        return add_child_graph_node(place, p.graph.graph);
      default: return SimDriver::instance().unsupported();
    }
  }));
}

CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS* nodeParams) {
  ApiScope api(entry("cuGraphHostNodeGetParams"), on_current_context());
  if (api.refused()) return api.result();
  if (nodeParams == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    const auto* call = node ? std::get_if<HostCall>(&node->work) : nullptr;
    if (call == nullptr || node->kind != NodeKind::Host) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = CUDA_HOST_NODE_PARAMS{call->fn, call->user_data};
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphConditionalHandleCreate(CUgraphConditionalHandle* pHandle_out, CUgraph hGraph, CUcontext,
                                                unsigned int /*defaultLaunchValue*/, unsigned int flags) {
  ApiScope api(entry("cuGraphConditionalHandleCreate"), on_current_context());
  if (api.refused()) return api.result();
  if (pHandle_out == nullptr || (flags & ~unsigned{CU_GRAPH_COND_ASSIGN_DEFAULT}) != 0)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return create_condition(hGraph, *pHandle_out);
  }));
}

CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                          size_t numDependencies, CUgraph childGraph) {
  ApiScope api(entry("cuGraphAddChildGraphNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_child_graph_node({phGraphNode, hGraph, dependencies, numDependencies}, childGraph);
  }));
}

CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph* phGraph) {
  ApiScope api(entry("cuGraphChildGraphNodeGetGraph"), on_current_context());
  if (api.refused()) return api.result();
  if (phGraph == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node || !node->child) return CUDA_ERROR_INVALID_VALUE;
    *phGraph = node->child->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) {
  ApiScope api(entry("cuGraphClone"), on_current_context());
  if (api.refused()) return api.result();
  if (phGraphClone == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraph> original = driver.graphs.find(originalGraph);
    if (!original) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<SimGraph> copy;
    if (CUresult rc = clone_graph(*original, copy); rc != CUDA_SUCCESS) return rc;
    driver.graphs.add(copy);
    *phGraphClone = copy->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode* phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph) {
  ApiScope api(entry("cuGraphNodeFindInClone"), on_current_context());
  if (api.refused()) return api.result();
  if (phNode == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraph> clone = driver.graphs.find(hClonedGraph);
    if (!clone || hOriginalNode == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& node : clone->nodes) {
      if (node->copy_of == hOriginalNode) {
        *phNode = node->handle();
        return CUDA_SUCCESS;
      }
    }
    return CUDA_ERROR_INVALID_VALUE;
  }));
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                     size_t numDependencies) {
  ApiScope api(entry("cuGraphAddEmptyNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return add_empty_node({phGraphNode, hGraph, dependencies, numDependencies});
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
