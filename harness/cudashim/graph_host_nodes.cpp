#include "harness/cudashim/graph_host_nodes.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace gilsan::cudashim {
namespace {

struct HostNode {
  CUgraphNode node = nullptr;  // null where the driver did not say (captured, nested, unmatched clone)
  HostFunctionRecord* record = nullptr;
};

struct ExecNodes {
  // The graph it was instantiated from: cuGraphExecHostNodeSetParams names nodes by that graph's handles.
  CUgraph origin = nullptr;
  std::vector<HostNode> nodes;
  // False once a per-node set named a node the book cannot place: which record it replaced is unknown,
  // so no launch announces any until cuGraphExecUpdate gives it a known graph's nodes.
  bool followed = true;
};

struct Book {
  std::mutex mutex;
  std::unordered_map<CUgraph, std::vector<HostNode>> graphs;
  std::unordered_map<CUgraphExec, ExecNodes> execs;
  std::unordered_map<CUgraphNode, CUgraph> node_graph;
};

Book& book() {
  static auto* const instance = new Book();  // never freed: driver threads may outlive main
  return *instance;
}

std::vector<HostNode>::iterator find_node(std::vector<HostNode>& nodes, CUgraphNode node) {
  return std::find_if(nodes.begin(), nodes.end(), [&](const HostNode& entry) { return entry.node == node; });
}

const std::vector<HostNode>* nodes_of(const Book& state, CUgraph graph) {
  auto found = state.graphs.find(graph);
  return found == state.graphs.end() ? nullptr : &found->second;
}

}  // namespace

void graph_node_added(CUgraph graph, CUgraphNode node, HostFunctionRecord* record) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  state.graphs[graph].push_back({node, record});
  if (node != nullptr) state.node_graph[node] = graph;
}

bool graph_node_known(CUgraphNode node) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  return node != nullptr && state.node_graph.contains(node);
}

void graph_node_replaced(CUgraphNode node, HostFunctionRecord* record, HostFunctionRecord* replaced) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto graph = node != nullptr ? state.node_graph.find(node) : state.node_graph.end();
  if (graph != state.node_graph.end()) {
    std::vector<HostNode>& nodes = state.graphs[graph->second];
    auto found = find_node(nodes, node);
    if (found != nodes.end()) {
      found->record = record;
      return;
    }
  }
  if (replaced != nullptr) replaced->announced.store(false, std::memory_order_relaxed);
}

void exec_node_replaced(CUgraphExec exec, CUgraphNode node, HostFunctionRecord* record) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto exec_nodes = state.execs.find(exec);
  if (exec_nodes == state.execs.end()) return;
  auto found = node != nullptr ? find_node(exec_nodes->second.nodes, node) : exec_nodes->second.nodes.end();
  if (found != exec_nodes->second.nodes.end()) {
    found->record = record;
  } else {
    exec_nodes->second.followed = false;
  }
}

std::vector<CUgraphNode> known_host_nodes(CUgraph graph) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  std::vector<CUgraphNode> nodes;
  if (const std::vector<HostNode>* entries = nodes_of(state, graph)) {
    for (const HostNode& entry : *entries) {
      if (entry.node != nullptr) nodes.push_back(entry.node);
    }
  }
  return nodes;
}

void graph_cloned(CUgraph original, CUgraph clone,
                  const std::vector<std::pair<CUgraphNode, CUgraphNode>>& clone_nodes) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  const std::vector<HostNode>* entries = nodes_of(state, original);
  if (entries == nullptr) return;
  std::vector<HostNode> copied;
  for (const HostNode& entry : *entries) {
    CUgraphNode in_clone = nullptr;
    for (const auto& [original_node, clone_node] : clone_nodes) {
      if (entry.node != nullptr && original_node == entry.node) in_clone = clone_node;
    }
    copied.push_back({in_clone, entry.record});
    if (in_clone != nullptr) state.node_graph[in_clone] = clone;
  }
  state.graphs[clone] = std::move(copied);
}

void child_graph_added(CUgraph parent, CUgraph child) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  const std::vector<HostNode>* entries = nodes_of(state, child);
  if (entries == nullptr) return;
  std::vector<HostNode> copied = *entries;  // the child node holds a copy of the child graph
  for (HostNode& entry : copied) entry.node = nullptr;
  auto& nodes = state.graphs[parent];
  nodes.insert(nodes.end(), copied.begin(), copied.end());
}

void graph_instantiated(CUgraph graph, CUgraphExec exec) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  const std::vector<HostNode>* entries = nodes_of(state, graph);
  state.execs[exec] = ExecNodes{graph, entries != nullptr ? *entries : std::vector<HostNode>{}};
}

void exec_updated(CUgraphExec exec, CUgraph graph) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto exec_nodes = state.execs.find(exec);
  const CUgraph origin = exec_nodes != state.execs.end() ? exec_nodes->second.origin : nullptr;
  const std::vector<HostNode>* entries = nodes_of(state, graph);
  std::vector<HostNode> nodes = entries != nullptr ? *entries : std::vector<HostNode>{};
  // The driver pairs the two graphs' nodes by topology and does not say how: a node of another graph
  // than the origin cannot name an exec node, so later per-node sets on this exec are not followed.
  if (graph != origin || origin == nullptr) {
    for (HostNode& entry : nodes) entry.node = nullptr;
  }
  state.execs[exec] = ExecNodes{origin, std::move(nodes)};
}

void graph_node_destroyed(CUgraphNode node, HostFunctionRecord* held_if_unknown) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto graph = node != nullptr ? state.node_graph.find(node) : state.node_graph.end();
  if (graph == state.node_graph.end()) {
    // A node the book cannot place: which graph's entry it was is unknown, so its record stops being
    // announced anywhere rather than be announced by a graph that no longer runs it.
    if (held_if_unknown != nullptr) held_if_unknown->announced.store(false, std::memory_order_relaxed);
    return;
  }
  std::vector<HostNode>& nodes = state.graphs[graph->second];
  if (auto found = find_node(nodes, node); found != nodes.end()) nodes.erase(found);
  state.node_graph.erase(graph);
}

void graph_destroyed(CUgraph graph) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto found = state.graphs.find(graph);
  if (found == state.graphs.end()) return;
  for (const HostNode& entry : found->second) {
    if (entry.node != nullptr) state.node_graph.erase(entry.node);
  }
  state.graphs.erase(found);
}

void exec_destroyed(CUgraphExec exec) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  state.execs.erase(exec);
}

std::vector<HostFunctionRecord*> records_of(CUgraphExec exec) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  std::vector<HostFunctionRecord*> records;
  auto found = state.execs.find(exec);
  if (found == state.execs.end() || !found->second.followed) return records;
  for (const HostNode& entry : found->second.nodes) {
    if (entry.record->announced.load(std::memory_order_relaxed)) records.push_back(entry.record);
  }
  return records;
}

}  // namespace gilsan::cudashim
