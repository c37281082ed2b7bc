#include "harness/watchdog/wait_for_graph.h"

#include <functional>

namespace gilsan::watchdog {

const WaitNode& WaitForGraph::add_node(WaitNode node) {
  auto found = index_.find(node.id);
  if (found != index_.end()) return nodes_[found->second];
  index_[node.id] = nodes_.size();
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

void WaitForGraph::add_edge(WaitEdge edge) {
  for (const WaitEdge& existing : edges_) {
    if (existing.from == edge.from && existing.to == edge.to) return;
  }
  edges_.push_back(std::move(edge));
}

const WaitNode* WaitForGraph::node(const std::string& id) const {
  auto found = index_.find(id);
  return found == index_.end() ? nullptr : &nodes_[found->second];
}

std::vector<const WaitEdge*> WaitForGraph::edges_from(const std::string& id) const {
  std::vector<const WaitEdge*> out;
  for (const WaitEdge& edge : edges_) {
    if (edge.from == id) out.push_back(&edge);
  }
  return out;
}

std::vector<std::vector<WaitEdge>> WaitForGraph::find_cycles(bool include_inferred, std::size_t limit) const {
  // Enumerates cycles through each start node that use only nodes added after it, so each cycle is
  // found exactly once. The graphs are small (tens of nodes), so a plain search is enough.
  std::vector<std::vector<WaitEdge>> cycles;
  std::vector<WaitEdge> path;
  std::vector<bool> on_path(nodes_.size(), false);
  std::function<void(std::size_t, std::size_t)> walk = [&](std::size_t start, std::size_t at) {
    for (const WaitEdge& edge : edges_) {
      if (cycles.size() >= limit) return;
      if (edge.from != nodes_[at].id || (edge.inferred && !include_inferred)) continue;
      auto next = index_.find(edge.to);
      if (next == index_.end() || next->second < start) continue;
      if (next->second == start) {
        path.push_back(edge);
        cycles.push_back(path);
        path.pop_back();
      } else if (!on_path[next->second]) {
        on_path[next->second] = true;
        path.push_back(edge);
        walk(start, next->second);
        path.pop_back();
        on_path[next->second] = false;
      }
    }
  };
  for (std::size_t start = 0; start < nodes_.size() && cycles.size() < limit; ++start) {
    on_path[start] = true;
    walk(start, start);
    on_path[start] = false;
  }
  return cycles;
}

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::thread: return "thread";
    case NodeKind::event: return "event";
#define GILSAN_PSEUDO_LOCK_KIND(enumerator, core_name, graph_name, description) \
  case NodeKind::enumerator:                                                  \
    return graph_name;
#include "checkers/core/pseudo_lock_kinds.inc"
#undef GILSAN_PSEUDO_LOCK_KIND
  }
  return "invalid";
}

const char* to_string(EdgeRelation relation) {
  switch (relation) {
    case EdgeRelation::WaitsFor: return "waits-for";
    case EdgeRelation::HeldBy: return "held-by";
  }
  return "invalid";
}

}  // namespace gilsan::watchdog
