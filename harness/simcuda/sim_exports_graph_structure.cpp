// A graph's structure as the driver answers for it: its nodes, root nodes and edges, each node's type,
// dependencies and dependents; destroying a node, adding and removing edges. Edges carry no data in the sim (every edge is the
// default one: full completion of the node before), so edge data asked for comes back zeroed.
#include <cstddef>
#include <cstring>
#include <vector>

#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_graph.h"

using namespace gilsan::sim;

namespace {

// The driver's list convention: a null array asks for the count; otherwise up to *count entries are
// written, the rest of the array (if the caller's is longer) set to null, and *count says how many were.
template <typename Fill>
CUresult answer_list(std::size_t available, std::size_t* count, bool array_given, Fill fill) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!array_given) {
    *count = available;
    return CUDA_SUCCESS;
  }
  const std::size_t written = available < *count ? available : *count;
  for (std::size_t i = 0; i < *count; ++i) fill(i, i < written);
  *count = written;
  return CUDA_SUCCESS;
}

CUresult answer_nodes(const std::vector<SimGraphNode*>& nodes, CUgraphNode* out, CUgraphEdgeData* edge_data,
                      std::size_t* count) {
  return answer_list(nodes.size(), count, out != nullptr, [&](std::size_t i, bool present) {
    out[i] = present ? nodes[i]->handle() : nullptr;
    if (edge_data != nullptr) std::memset(&edge_data[i], 0, sizeof edge_data[i]);
  });
}

std::vector<SimGraphNode*> all_nodes(const SimGraph& graph, bool roots_only) {
  std::vector<SimGraphNode*> nodes;
  for (const auto& node : graph.nodes)
    if (!roots_only || node->after.empty()) nodes.push_back(node.get());
  return nodes;
}

CUresult graph_nodes(CUgraph hGraph, CUgraphNode* nodes, size_t* count, bool roots_only) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  return answer_nodes(all_nodes(*graph, roots_only), nodes, nullptr, count);
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  ApiScope api(entry("cuGraphGetNodes"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return graph_nodes(hGraph, nodes, numNodes, false); }));
}

CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode* rootNodes, size_t* numRootNodes) {
  ApiScope api(entry("cuGraphGetRootNodes"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return graph_nodes(hGraph, rootNodes, numRootNodes, true); }));
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData,
                                    size_t* numEdges) {
  ApiScope api(entry("cuGraphGetEdges"), on_current_context());
  if (api.refused()) return api.result();
  // Both arrays or neither; edge data only with them.
  if ((from == nullptr) != (to == nullptr) || (edgeData != nullptr && from == nullptr))
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    std::vector<std::pair<SimGraphNode*, SimGraphNode*>> edges;
    for (const auto& node : graph->nodes)
      for (SimGraphNode* before : node->after) edges.emplace_back(before, node.get());
    return answer_list(edges.size(), numEdges, from != nullptr, [&](std::size_t i, bool present) {
      from[i] = present ? edges[i].first->handle() : nullptr;
      to[i] = present ? edges[i].second->handle() : nullptr;
      if (edgeData != nullptr) std::memset(&edgeData[i], 0, sizeof edgeData[i]);
    });
  }));
}

CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
  ApiScope api(entry("cuGraphNodeGetType"), on_current_context());
  if (api.refused()) return api.result();
  if (type == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node) return CUDA_ERROR_INVALID_VALUE;
    *type = node_type(node->kind);
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode* dependencies, CUgraphEdgeData* edgeData,
                                               size_t* numDependencies) {
  ApiScope api(entry("cuGraphNodeGetDependencies"), on_current_context());
  if (api.refused()) return api.result();
  if (edgeData != nullptr && dependencies == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node) return CUDA_ERROR_INVALID_VALUE;
    return answer_nodes(node->after, dependencies, edgeData, numDependencies);
  }));
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode* dependentNodes,
                                                 CUgraphEdgeData* edgeData, size_t* numDependentNodes) {
  ApiScope api(entry("cuGraphNodeGetDependentNodes"), on_current_context());
  if (api.refused()) return api.result();
  if (edgeData != nullptr && dependentNodes == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node) return CUDA_ERROR_INVALID_VALUE;
    return answer_nodes(dependents_of(*node->graph, *node), dependentNodes, edgeData, numDependentNodes);
  }));
}

CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode) {
  ApiScope api(entry("cuGraphDestroyNode"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraphNode> node = driver.graph_nodes.find(hNode);
    if (!node) return CUDA_ERROR_INVALID_VALUE;
    // A graph with memory nodes keeps its nodes (the error is the one an H100 gave, driver 580.159.04).
    if (has_memory_nodes(*node->graph)) return CUDA_ERROR_NOT_SUPPORTED;
    remove_node(*node->graph, *node);
    return CUDA_SUCCESS;
  }));
}

}  // extern "C"

extern "C" {

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                           const CUgraphEdgeData* edgeData, size_t numDependencies) {
  ApiScope api(entry("cuGraphAddDependencies"), on_current_context());
  if (api.refused()) return api.result();
  if (!default_edges(edgeData, numDependencies)) return api.finish(SimDriver::instance().unsupported());
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    return add_edges(*graph, from, to, numDependencies);
  }));
}

CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                              const CUgraphEdgeData* /*edgeData*/, size_t numDependencies) {
  ApiScope api(entry("cuGraphRemoveDependencies"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimGraph> graph = driver.graphs.find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    return remove_edges(*graph, from, to, numDependencies);
  }));
}

}  // extern "C"
