// Copies of graphs: cuGraphClone and the copy a child-graph node holds.
#include <memory>
#include <unordered_map>
#include <utility>

#include "harness/simcuda/sim_graph.h"

namespace gilsan::sim {

CUresult clone_graph(const SimGraph& original, std::shared_ptr<SimGraph>& out) {
  auto& driver = SimDriver::instance();
  if (has_memory_nodes(original)) return CUDA_ERROR_NOT_SUPPORTED;
  for (const auto& node : original.nodes)
    if (node->kind == NodeKind::Conditional) return driver.unsupported();  // copying bodies is not modeled
  auto copy = std::make_shared<SimGraph>();
  std::unordered_map<const SimGraphNode*, SimGraphNode*> copied;
  for (const auto& node : original.nodes) {
    auto twin = std::make_shared<SimGraphNode>(*node);
    twin->graph = copy.get();
    twin->copy_of = node.get();
    // A copy's host node is a host function of its own: another run key.
    if (auto* call = std::get_if<HostCall>(&twin->work)) call->run_key = driver.take_run_key();
    if (node->child) {
      if (CUresult rc = clone_graph(*node->child, twin->child); rc != CUDA_SUCCESS) {
        forget_graph_nodes(*copy);
        return rc;
      }
      driver.graphs.add(twin->child);
    }
    copied[node.get()] = twin.get();
    copy->nodes.push_back(twin);
    driver.graph_nodes.add(twin);
  }
  // The copy's edges lead to the copy's nodes, remapped once all are copied: an edge added by
  // cuGraphAddDependencies may come from a node added later.
  for (const auto& node : copy->nodes)
    for (SimGraphNode*& before : node->after) before = copied.at(before);
  original.user_objects.copy_into(copy->user_objects);
  out = std::move(copy);
  return CUDA_SUCCESS;
}

}  // namespace gilsan::sim
