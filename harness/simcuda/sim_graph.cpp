#include "harness/simcuda/sim_graph.h"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"

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

namespace {

// The nodes of one request's edges, checked to belong to `graph`.
CUresult resolve_edges(const SimGraph& graph, const CUgraphNode* from, const CUgraphNode* to, std::size_t count,
                       std::vector<std::pair<SimGraphNode*, SimGraphNode*>>& out) {
  auto& driver = SimDriver::instance();
  if (count > 0 && (from == nullptr || to == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  for (std::size_t i = 0; i < count; ++i) {
    auto before = driver.graph_nodes.find(from[i]);
    auto after = driver.graph_nodes.find(to[i]);
    if (!before || !after || before->graph != &graph || after->graph != &graph) return CUDA_ERROR_INVALID_VALUE;
    out.emplace_back(before.get(), after.get());
  }
  return CUDA_SUCCESS;
}

bool has_edge(const SimGraphNode* before, const SimGraphNode* after) {
  return std::find(after->after.begin(), after->after.end(), before) != after->after.end();
}

}  // namespace

CUresult add_edges(SimGraph& graph, const CUgraphNode* from, const CUgraphNode* to, std::size_t count) {
  std::vector<std::pair<SimGraphNode*, SimGraphNode*>> edges;
  if (CUresult rc = resolve_edges(graph, from, to, count, edges); rc != CUDA_SUCCESS) return rc;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto& [before, after] = edges[i];
    if (before == after || has_edge(before, after)) return CUDA_ERROR_INVALID_VALUE;
    for (std::size_t j = 0; j < i; ++j)
      if (edges[j] == edges[i]) return CUDA_ERROR_INVALID_VALUE;
  }
  for (const auto& [before, after] : edges) after->after.push_back(before);
  return CUDA_SUCCESS;
}

CUresult remove_edges(SimGraph& graph, const CUgraphNode* from, const CUgraphNode* to, std::size_t count) {
  if (has_memory_nodes(graph)) return CUDA_ERROR_NOT_SUPPORTED;  // as an H100 answered (580.159.04)
  std::vector<std::pair<SimGraphNode*, SimGraphNode*>> edges;
  if (CUresult rc = resolve_edges(graph, from, to, count, edges); rc != CUDA_SUCCESS) return rc;
  for (const auto& [before, after] : edges)
    if (!has_edge(before, after)) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& [before, after] : edges) std::erase(after->after, before);
  return CUDA_SUCCESS;
}

bool has_memory_nodes(const SimGraph& graph) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const std::shared_ptr<SimGraphNode>& node) {
    return node->kind == NodeKind::MemAlloc || node->kind == NodeKind::MemFree;
  });
}

std::vector<SimGraphNode*> dependents_of(const SimGraph& graph, const SimGraphNode& node) {
  std::vector<SimGraphNode*> dependents;
  for (const auto& candidate : graph.nodes) {
    for (const SimGraphNode* before : candidate->after) {
      if (before == &node) {
        dependents.push_back(candidate.get());
        break;
      }
    }
  }
  return dependents;
}

void remove_node(SimGraph& graph, SimGraphNode& node) {
  for (const auto& other : graph.nodes) std::erase(other->after, &node);
  if (node.child) {
    forget_graph_nodes(*node.child);
    SimDriver::instance().graphs.remove(node.child.get());
  }
  for (const auto& body : node.bodies) {
    forget_graph_nodes(*body);
    SimDriver::instance().graphs.remove(body.get());
  }
  SimDriver::instance().graph_nodes.remove(&node);
  std::erase_if(graph.nodes, [&](const std::shared_ptr<SimGraphNode>& kept) { return kept.get() == &node; });
}

bool default_edges(const CUgraphEdgeData* data, std::size_t count) {
  if (data == nullptr) return true;
  for (std::size_t i = 0; i < count; ++i)
    if (data[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || data[i].from_port != 0 || data[i].to_port != 0) return false;
  return true;
}

CUgraphNodeType node_type(NodeKind kind) {
  switch (kind) {
    case NodeKind::Empty: return CU_GRAPH_NODE_TYPE_EMPTY;
    case NodeKind::Host: return CU_GRAPH_NODE_TYPE_HOST;
    case NodeKind::Kernel: return CU_GRAPH_NODE_TYPE_KERNEL;
    case NodeKind::Memcpy: return CU_GRAPH_NODE_TYPE_MEMCPY;
    case NodeKind::Memset: return CU_GRAPH_NODE_TYPE_MEMSET;
    case NodeKind::MemAlloc: return CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    case NodeKind::MemFree: return CU_GRAPH_NODE_TYPE_MEM_FREE;
    case NodeKind::EventRecord: return CU_GRAPH_NODE_TYPE_EVENT_RECORD;
    case NodeKind::EventWait: return CU_GRAPH_NODE_TYPE_WAIT_EVENT;
    case NodeKind::ChildGraph: return CU_GRAPH_NODE_TYPE_GRAPH;
    case NodeKind::Conditional: return CU_GRAPH_NODE_TYPE_CONDITIONAL;
  }
  return CU_GRAPH_NODE_TYPE_EMPTY;
}

void forget_graph_nodes(SimGraph& graph) {
  auto& driver = SimDriver::instance();
  for (const auto& node : graph.nodes) {
    driver.graph_nodes.remove(node.get());
    if (node->child) {
      forget_graph_nodes(*node->child);
      driver.graphs.remove(node->child.get());
    }
    for (const auto& body : node->bodies) {
      forget_graph_nodes(*body);
      driver.graphs.remove(body.get());
    }
  }
}

namespace {

// Appends `graph`'s work to `exec` in a dependency order, a child graph's in its node's place.
CUresult append_steps(const SimGraph& graph, SimGraphExec& exec) {
  // Edges added later (cuGraphAddDependencies) can point either way, so the steps are put in a
  // dependency order: each node once every node before it has been placed, the earliest added first.
  // Running them one after another then honours every edge.
  std::vector<const SimGraphNode*> order;
  std::vector<bool> placed(graph.nodes.size(), false);
  std::unordered_map<const SimGraphNode*, std::size_t> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].get()] = i;
  auto index_of = [&](const SimGraphNode* node) { return index.at(node); };
  while (order.size() < graph.nodes.size()) {
    bool progressed = false;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
      if (placed[i]) continue;
      const auto& before = graph.nodes[i]->after;
      if (!std::all_of(before.begin(), before.end(), [&](const SimGraphNode* b) { return placed[index_of(b)]; }))
        continue;
      placed[i] = true;
      order.push_back(graph.nodes[i].get());
      progressed = true;
    }
    if (!progressed) return CUDA_ERROR_INVALID_VALUE;  // a cycle
  }
  for (const SimGraphNode* node : order) {
    if (node->kind == NodeKind::Conditional) return SimDriver::instance().unsupported();
    if (node->child) {
      if (CUresult rc = append_steps(*node->child, exec); rc != CUDA_SUCCESS) return rc;
      continue;
    }
    exec.steps.push_back(node->work);
    if (node->kind == NodeKind::EventRecord) exec.records.push_back(node->event);
    if (node->kind == NodeKind::EventWait) exec.waits.push_back(node->event);
  }
  graph.user_objects.copy_into(exec.user_objects);
  return CUDA_SUCCESS;
}

}  // namespace

CUresult instantiate(const SimGraph& graph, const std::shared_ptr<SimContext>& context,
                     std::shared_ptr<SimGraphExec>& out) {
  auto exec = std::make_shared<SimGraphExec>();
  exec->context = context;
  if (CUresult rc = append_steps(graph, *exec); rc != CUDA_SUCCESS) return rc;
  SimDriver::instance().graph_execs.add(exec);
  out = std::move(exec);
  return CUDA_SUCCESS;
}

CUresult launch(Lock& lock, const std::shared_ptr<SimGraphExec>& exec, SimStream& stream) {
  std::vector<Dependency> after;
  if (exec->last_launch) after.push_back(*exec->last_launch);
  for (const auto& event : exec->waits)
    if (event->recorded) after.push_back(*event->recorded);
  if (CUresult rc = submit(lock, stream, GraphRun{exec}, std::move(after)); rc != CUDA_SUCCESS) return rc;
  exec->last_launch = Dependency{stream.shared_from_this(), stream.enqueued};
  for (const auto& event : exec->records)
    if (CUresult rc = record_event(lock, event, stream); rc != CUDA_SUCCESS) return rc;
  return CUDA_SUCCESS;
}

CUresult upload(Lock& lock, SimStream& stream) {
  // A capture would have to hold the upload as a node, which the sim does not model.
  if (stream.capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  // Nothing to copy to a device that is host memory; the upload is still a point in stream order.
  return submit(lock, stream, NoWork{});
}

}  // namespace gilsan::sim
