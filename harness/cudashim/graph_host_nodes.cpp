#include "harness/cudashim/graph_host_nodes.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace gilsan::cudashim {
namespace {

struct HostNode {
  CUgraphNode node = nullptr;
  HostFunctionRecord* record = nullptr;
};

struct Book {
  std::mutex mutex;
  std::unordered_map<CUgraph, std::vector<HostNode>> graphs;
  std::unordered_map<CUgraphExec, std::vector<HostNode>> execs;
  std::unordered_map<CUgraphNode, CUgraph> node_graph;
};

Book& book() {
  static auto* const instance = new Book();  // never freed: driver threads may outlive main
  return *instance;
}

void replace_in(std::vector<HostNode>& nodes, CUgraphNode node, HostFunctionRecord* record) {
  auto found = std::find_if(nodes.begin(), nodes.end(), [&](const HostNode& entry) { return entry.node == node; });
  if (found != nodes.end()) {
    found->record = record;
  } else {
    nodes.push_back({node, record});
  }
}

}  // namespace

void graph_node_added(CUgraph graph, CUgraphNode node, HostFunctionRecord* record) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  state.graphs[graph].push_back({node, record});
  if (node != nullptr) state.node_graph[node] = graph;
}

void graph_node_replaced(CUgraphNode node, HostFunctionRecord* record) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto graph = state.node_graph.find(node);
  if (graph != state.node_graph.end()) replace_in(state.graphs[graph->second], node, record);
}

void exec_node_replaced(CUgraphExec exec, CUgraphNode node, HostFunctionRecord* record) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto found = state.execs.find(exec);
  if (found != state.execs.end()) replace_in(found->second, node, record);
}

void graph_cloned(CUgraph original, CUgraph clone) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto found = state.graphs.find(original);
  if (found == state.graphs.end()) return;
  // The clone's nodes have handles of their own, which the driver does not tell us: runs are still
  // counted, parameters set on the clone's nodes are not followed.
  std::vector<HostNode> copied;
  for (const HostNode& entry : found->second) copied.push_back({nullptr, entry.record});
  state.graphs[clone] = std::move(copied);
}

void child_graph_added(CUgraph parent, CUgraph child) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto found = state.graphs.find(child);
  if (found == state.graphs.end()) return;
  std::vector<HostNode> copied = found->second;  // the child node holds a copy of the child graph
  for (HostNode& entry : copied) entry.node = nullptr;
  auto& nodes = state.graphs[parent];
  nodes.insert(nodes.end(), copied.begin(), copied.end());
}

void graph_instantiated(CUgraph graph, CUgraphExec exec) {
  Book& state = book();
  std::lock_guard lock(state.mutex);
  auto found = state.graphs.find(graph);
  if (found == state.graphs.end()) {
    state.execs.erase(exec);
    return;
  }
  state.execs[exec] = found->second;
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
  if (found == state.execs.end()) return records;
  for (const HostNode& entry : found->second) records.push_back(entry.record);
  return records;
}

}  // namespace gilsan::cudashim
