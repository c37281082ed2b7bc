#include "harness/simcuda/sim_graph.h"

#include "harness/simcuda/sim_context.h"

namespace gilsan::sim {

CUresult add_node(SimGraph& graph, NodeKind kind, WorkItem work, const CUgraphNode* dependencies,
                  std::size_t dependency_count, SimGraphNode*& out) {
  auto& driver = SimDriver::instance();
  if (dependency_count > 0 && dependencies == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<SimGraphNode*> after;
  for (std::size_t i = 0; i < dependency_count; ++i) {
    auto node = driver.graph_nodes.find(dependencies[i]);
    if (!node || node->graph != &graph) return CUDA_ERROR_INVALID_VALUE;
    after.push_back(node.get());
  }
  auto node = std::make_shared<SimGraphNode>();
  node->graph = &graph;
  node->kind = kind;
  node->work = std::move(work);
  node->after = std::move(after);
  graph.nodes.push_back(node);
  driver.graph_nodes.add(node);
  out = node.get();
  return CUDA_SUCCESS;
}

void forget_graph_nodes(SimGraph& graph) {
  for (const auto& node : graph.nodes) SimDriver::instance().graph_nodes.remove(node.get());
}

CUresult instantiate(const SimGraph& graph, const std::shared_ptr<SimContext>& context,
                     std::shared_ptr<SimGraphExec>& out) {
  auto exec = std::make_shared<SimGraphExec>();
  exec->context = context;
  // A node can only depend on nodes that existed when it was added, so the order of addition is
  // already a dependency order; running the steps one after another honours every edge.
  for (const auto& node : graph.nodes) exec->steps.push_back(node->work);
  graph.user_objects.copy_into(exec->user_objects);
  SimDriver::instance().graph_execs.add(exec);
  out = std::move(exec);
  return CUDA_SUCCESS;
}

CUresult launch(Lock& lock, const std::shared_ptr<SimGraphExec>& exec, SimStream& stream) {
  std::vector<Dependency> after;
  if (exec->last_launch) after.push_back(*exec->last_launch);
  if (CUresult rc = submit(lock, stream, GraphRun{exec}, std::move(after)); rc != CUDA_SUCCESS) return rc;
  exec->last_launch = Dependency{stream.shared_from_this(), stream.enqueued};
  return CUDA_SUCCESS;
}

CUresult upload(Lock& lock, SimStream& stream) {
  // A capture would have to hold the upload as a node, which the sim does not model.
  if (stream.capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  // Nothing to copy to a device that is host memory; the upload is still a point in stream order.
  return submit(lock, stream, NoWork{});
}

}  // namespace gilsan::sim
