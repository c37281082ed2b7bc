// The graph entry points the forwarding driver wraps: host nodes get a record and our trampoline (as
// stream launches do), parameters read back are the application's, and the book of which graph holds
// which host function follows clones, child graphs, instantiation and destruction, so that each
// launch tells the observer which host functions it enqueued (graph_host_nodes.h); updates of
// executable graphs move it too.
#include <cuda.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "harness/cudashim/graph_host_nodes.h"
#include "harness/cudashim/host_function_record.h"
#include "harness/cudashim/observed_call.h"
#include "harness/cudashim/real_driver.h"

namespace gilsan::cudashim {
namespace {

// The real function `symbol`, looked up once per wrapper.
#define GILSAN_SHIM_REAL(type, symbol) \
  static const auto real = real_or_unavailable<type>(symbol)

// Host-node parameters as handed to the real driver: our trampoline and a lasting record.
CUDA_HOST_NODE_PARAMS wrapped(const CUDA_HOST_NODE_PARAMS& params, CUcontext context, HostFunctionRecord*& record) {
  record = make_record(params.fn, nullptr, params.userData, context, nullptr, true);
  return CUDA_HOST_NODE_PARAMS{&run_host_function_record, record};
}

// A copy of generic node parameters with a host node's function wrapped (other kinds unchanged).
CUgraphNodeParams wrapped(const CUgraphNodeParams& params, CUcontext context, HostFunctionRecord*& record) {
  CUgraphNodeParams copy = params;
  record = nullptr;
  if (params.type == CU_GRAPH_NODE_TYPE_HOST && params.host.fn != nullptr) {
    record = make_record(params.host.fn, nullptr, params.host.userData, context, nullptr, true);
    copy.host.fn = &run_host_function_record;
    copy.host.userData = record;
  }
  return copy;
}

// For a node the book of graphs does not know (a clone's node the driver did not match, a node of a
// child node's graph): the record its parameters hold now, read before they are replaced, so that the
// book can stop announcing it (graph_host_nodes.h). Null for a known node or one not ours.
HostFunctionRecord* record_replaced_on_unknown(CUgraphNode node) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphHostNodeGetParams), "cuGraphHostNodeGetParams");
  if (graph_node_known(node)) return nullptr;
  CUDA_HOST_NODE_PARAMS current{};
  return real(node, &current) == CUDA_SUCCESS ? record_behind(current.fn, current.userData) : nullptr;
}

CUresult add_host_node(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                       const CUDA_HOST_NODE_PARAMS* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphAddHostNode), "cuGraphAddHostNode");
  if (params == nullptr || params->fn == nullptr || !driverhooks::observed())
    return real(node, graph, dependencies, count, params);
  CallScope scope("cuGraphAddHostNode", target_of());
  HostFunctionRecord* record = nullptr;
  const CUDA_HOST_NODE_PARAMS ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(node, graph, dependencies, count, &ours);
  if (result == CUDA_SUCCESS) graph_node_added(graph, node != nullptr ? *node : nullptr, record);
  // A failed call's record is kept: freeing it saves a few bytes, and a driver that kept the node despite
  // the error would call freed memory.
  return scope.finish(result);
}

CUresult host_node_set_params(CUgraphNode node, const CUDA_HOST_NODE_PARAMS* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphHostNodeSetParams), "cuGraphHostNodeSetParams");
  if (params == nullptr || params->fn == nullptr || !driverhooks::observed()) return real(node, params);
  CallScope scope("cuGraphHostNodeSetParams", target_of());
  HostFunctionRecord* replaced = record_replaced_on_unknown(node);
  HostFunctionRecord* record = nullptr;
  const CUDA_HOST_NODE_PARAMS ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(node, &ours);
  if (result == CUDA_SUCCESS) graph_node_replaced(node, record, replaced);
  return scope.finish(result);
}

CUresult exec_host_node_set_params(CUgraphExec exec, CUgraphNode node, const CUDA_HOST_NODE_PARAMS* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphExecHostNodeSetParams), "cuGraphExecHostNodeSetParams");
  if (params == nullptr || params->fn == nullptr || !driverhooks::observed()) return real(exec, node, params);
  CallScope scope("cuGraphExecHostNodeSetParams", target_of());
  HostFunctionRecord* record = nullptr;
  const CUDA_HOST_NODE_PARAMS ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(exec, node, &ours);
  if (result == CUDA_SUCCESS) exec_node_replaced(exec, node, record);
  return scope.finish(result);
}

// Read back: the application's own function, not our trampoline.
CUresult host_node_get_params(CUgraphNode node, CUDA_HOST_NODE_PARAMS* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphHostNodeGetParams), "cuGraphHostNodeGetParams");
  const CUresult result = real(node, params);
  if (result == CUDA_SUCCESS && params != nullptr) {
    if (const HostFunctionRecord* record = record_behind(params->fn, params->userData)) {
      params->fn = record->info.fn;
      params->userData = record->info.user_data;
    }
  }
  return result;
}

// cuGraphAddNode before CUDA 12.3 (no edge data); cuda.h declares only the current form.
using AddNodeV1 = CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t, CUgraphNodeParams*);

CUresult add_node_v1(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                     CUgraphNodeParams* params) {
  GILSAN_SHIM_REAL(AddNodeV1, "cuGraphAddNode");
  if (params == nullptr || !driverhooks::observed()) return real(node, graph, dependencies, count, params);
  CallScope scope("cuGraphAddNode", target_of());
  HostFunctionRecord* record = nullptr;
  CUgraphNodeParams ours = wrapped(*params, scope.context(), record);
  // Only a host node's parameters are replaced; any other kind is the caller's own, which the driver
  // writes into (an allocation's address, a conditional node's body graphs).
  const CUresult result = real(node, graph, dependencies, count, record != nullptr ? &ours : params);
  if (result == CUDA_SUCCESS && record != nullptr) graph_node_added(graph, node != nullptr ? *node : nullptr, record);
  return scope.finish(result);
}

CUresult add_node_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                     const CUgraphEdgeData* edges, size_t count, CUgraphNodeParams* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphAddNode), "cuGraphAddNode_v2");
  if (params == nullptr || !driverhooks::observed()) return real(node, graph, dependencies, edges, count, params);
  CallScope scope("cuGraphAddNode", target_of());
  HostFunctionRecord* record = nullptr;
  CUgraphNodeParams ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(node, graph, dependencies, edges, count, record != nullptr ? &ours : params);
  if (result == CUDA_SUCCESS && record != nullptr) graph_node_added(graph, node != nullptr ? *node : nullptr, record);
  return scope.finish(result);
}

CUresult node_set_params(CUgraphNode node, CUgraphNodeParams* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphNodeSetParams), "cuGraphNodeSetParams");
  if (params == nullptr || !driverhooks::observed()) return real(node, params);
  CallScope scope("cuGraphNodeSetParams", target_of());
  HostFunctionRecord* replaced = params->type == CU_GRAPH_NODE_TYPE_HOST ? record_replaced_on_unknown(node) : nullptr;
  HostFunctionRecord* record = nullptr;
  CUgraphNodeParams ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(node, record != nullptr ? &ours : params);
  if (result == CUDA_SUCCESS && record != nullptr) graph_node_replaced(node, record, replaced);
  return scope.finish(result);
}

CUresult exec_node_set_params(CUgraphExec exec, CUgraphNode node, CUgraphNodeParams* params) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphExecNodeSetParams), "cuGraphExecNodeSetParams");
  if (params == nullptr || !driverhooks::observed()) return real(exec, node, params);
  CallScope scope("cuGraphExecNodeSetParams", target_of());
  HostFunctionRecord* record = nullptr;
  CUgraphNodeParams ours = wrapped(*params, scope.context(), record);
  const CUresult result = real(exec, node, record != nullptr ? &ours : params);
  if (result == CUDA_SUCCESS && record != nullptr) exec_node_replaced(exec, node, record);
  return scope.finish(result);
}

CUresult instantiate_with_flags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphInstantiateWithFlags), "cuGraphInstantiateWithFlags");
  if (!driverhooks::observed()) return real(exec, graph, flags);
  CallScope scope("cuGraphInstantiateWithFlags", target_of());
  const CUresult result = real(exec, graph, flags);
  if (result == CUDA_SUCCESS && exec != nullptr) graph_instantiated(graph, *exec);
  return scope.finish(result);
}

template <bool PerThread>
CUresult instantiate_with_params(CUgraphExec* exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  using Real = CUresult (*)(CUgraphExec*, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS*);
  static const auto real =
      real_or_unavailable<Real>(PerThread ? "cuGraphInstantiateWithParams_ptsz" : "cuGraphInstantiateWithParams");
  if (!driverhooks::observed()) return real(exec, graph, params);
  CallScope scope("cuGraphInstantiateWithParams", target_of());
  const CUresult result = real(exec, graph, params);
  if (result == CUDA_SUCCESS && exec != nullptr) graph_instantiated(graph, *exec);
  return scope.finish(result);
}

// Each host node of the launch runs once more: its stream is the launch's, it is pending on the board
// from before the launch and the observer hears of the enqueue after it, as for a stream launch.
template <bool PerThread>
CUresult graph_launch(CUgraphExec exec, CUstream stream) {
  using Real = CUresult (*)(CUgraphExec, CUstream);
  static const auto real = real_or_unavailable<Real>(PerThread ? "cuGraphLaunch_ptsz" : "cuGraphLaunch");
  if (!driverhooks::observed()) return real(exec, stream);
  CallScope scope("cuGraphLaunch", target_of(stream));
  const std::vector<HostFunctionRecord*> records = records_of(exec);
  std::vector<GilsanSimHostFunction> runs;
  for (HostFunctionRecord* record : records) {
    record->launch_stream.store(stream, std::memory_order_relaxed);
    runs.push_back(run_of(*record));
  }
  // A node's id is the same at every launch: a failed launch takes back only the notes it placed.
  std::vector<bool> placed;
  for (const GilsanSimHostFunction& run : runs) {
    placed.push_back(driverhooks::host_function_pending(run, kBoardDriverName));
  }
  const CUresult result = real(exec, stream);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (result == CUDA_SUCCESS) {
      driverhooks::host_function_enqueued(runs[i]);
    } else if (placed[i]) {
      driverhooks::host_function_not_launched(runs[i], kBoardDriverName);
    }
  }
  return scope.finish(result);
}

CUresult graph_destroy(CUgraph graph) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphDestroy), "cuGraphDestroy");
  if (!driverhooks::observed()) return real(graph);
  CallScope scope("cuGraphDestroy", target_of());
  const CUresult result = real(graph);
  if (result == CUDA_SUCCESS) graph_destroyed(graph);
  return scope.finish(result);
}

CUresult graph_destroy_node(CUgraphNode node) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphDestroyNode), "cuGraphDestroyNode");
  if (!driverhooks::observed()) return real(node);
  CallScope scope("cuGraphDestroyNode", target_of());
  HostFunctionRecord* held_if_unknown = record_replaced_on_unknown(node);  // read before the node is gone
  const CUresult result = real(node);
  if (result == CUDA_SUCCESS) graph_node_destroyed(node, held_if_unknown);
  return scope.finish(result);
}

CUresult graph_exec_destroy(CUgraphExec exec) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphExecDestroy), "cuGraphExecDestroy");
  if (!driverhooks::observed()) return real(exec);
  CallScope scope("cuGraphExecDestroy", target_of());
  const CUresult result = real(exec);
  if (result == CUDA_SUCCESS) exec_destroyed(exec);
  return scope.finish(result);
}

// The clone's host nodes are matched to the original's (cuGraphNodeFindInClone), so that parameters
// set on them later are followed.
CUresult graph_clone(CUgraph* clone, CUgraph original) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphClone), "cuGraphClone");
  static const auto find_in_clone =
      real_or_unavailable<decltype(&::cuGraphNodeFindInClone)>("cuGraphNodeFindInClone");
  const CUresult result = real(clone, original);
  if (result != CUDA_SUCCESS || clone == nullptr) return result;
  std::vector<std::pair<CUgraphNode, CUgraphNode>> clone_nodes;
  for (CUgraphNode node : known_host_nodes(original)) {
    CUgraphNode in_clone = nullptr;
    if (find_in_clone(&in_clone, node, *clone) != CUDA_SUCCESS) in_clone = nullptr;
    clone_nodes.emplace_back(node, in_clone);
  }
  graph_cloned(original, *clone, clone_nodes);
  return result;
}

// A successful update makes the executable graph run `graph`'s host functions.
CUresult exec_update(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo* info) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphExecUpdate), "cuGraphExecUpdate_v2");
  const CUresult result = real(exec, graph, info);
  if (result == CUDA_SUCCESS) exec_updated(exec, graph);
  return result;
}

// cuGraphExecUpdate before CUDA 12.0; cuda.h declares only the current form.
using ExecUpdateV1 = CUresult (*)(CUgraphExec, CUgraph, CUgraphNode*, CUgraphExecUpdateResult*);

CUresult exec_update_v1(CUgraphExec exec, CUgraph graph, CUgraphNode* error_node, CUgraphExecUpdateResult* outcome) {
  GILSAN_SHIM_REAL(ExecUpdateV1, "cuGraphExecUpdate");
  const CUresult result = real(exec, graph, error_node, outcome);
  if (result == CUDA_SUCCESS) exec_updated(exec, graph);
  return result;
}

CUresult add_child_graph_node(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                              CUgraph child) {
  GILSAN_SHIM_REAL(decltype(&::cuGraphAddChildGraphNode), "cuGraphAddChildGraphNode");
  const CUresult result = real(node, graph, dependencies, count, child);
  if (result == CUDA_SUCCESS) child_graph_added(graph, child);
  return result;
}

#undef GILSAN_SHIM_REAL

template <typename Function>
WrappedEntryPoint entry(const char* symbol, Function function, const char* entry_point) {
  return WrappedEntryPoint{symbol, reinterpret_cast<void*>(function), nullptr, entry_point, nullptr};
}

}  // namespace

std::span<const WrappedEntryPoint> graph_entry_points() {
  static const WrappedEntryPoint entries[] = {
      entry("cuGraphAddHostNode", &add_host_node, "cuGraphAddHostNode"),
      entry("cuGraphHostNodeSetParams", &host_node_set_params, "cuGraphHostNodeSetParams"),
      entry("cuGraphExecHostNodeSetParams", &exec_host_node_set_params, "cuGraphExecHostNodeSetParams"),
      entry("cuGraphHostNodeGetParams", &host_node_get_params, "cuGraphHostNodeGetParams"),
      entry("cuGraphAddNode", &add_node_v1, "cuGraphAddNode"),
      entry("cuGraphAddNode_v2", &add_node_v2, "cuGraphAddNode"),
      entry("cuGraphNodeSetParams", &node_set_params, "cuGraphNodeSetParams"),
      entry("cuGraphExecNodeSetParams", &exec_node_set_params, "cuGraphExecNodeSetParams"),
      entry("cuGraphInstantiateWithFlags", &instantiate_with_flags, "cuGraphInstantiateWithFlags"),
      entry("cuGraphInstantiateWithParams", &instantiate_with_params<false>, "cuGraphInstantiateWithParams"),
      entry("cuGraphInstantiateWithParams_ptsz", &instantiate_with_params<true>, "cuGraphInstantiateWithParams"),
      entry("cuGraphLaunch", &graph_launch<false>, "cuGraphLaunch"),
      entry("cuGraphLaunch_ptsz", &graph_launch<true>, "cuGraphLaunch"),
      entry("cuGraphDestroy", &graph_destroy, "cuGraphDestroy"),
      entry("cuGraphExecDestroy", &graph_exec_destroy, "cuGraphExecDestroy"),
      entry("cuGraphDestroyNode", &graph_destroy_node, "cuGraphDestroyNode"),
      entry("cuGraphClone", &graph_clone, "cuGraphClone"),
      entry("cuGraphExecUpdate_v2", &exec_update, "cuGraphExecUpdate"),
      entry("cuGraphExecUpdate", &exec_update_v1, "cuGraphExecUpdate"),
      entry("cuGraphAddChildGraphNode", &add_child_graph_node, "cuGraphAddChildGraphNode"),
  };
  return entries;
}

}  // namespace gilsan::cudashim
