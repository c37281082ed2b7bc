#include "checkers/core/lock_order_graph.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

namespace gilsan::checkers {

NodeId LockOrderGraph::node_for(const PseudoLock& lock) {
  RecentNode& recent = recent_[static_cast<std::size_t>(lock.kind)];
  if (recent.valid && recent.context == lock.context && recent.stream == lock.stream &&
      recent.lock == lock.lock) {
    return recent.node;
  }
  NodeId node = 0;
  if (auto found = live_.find(lock); found != live_.end()) {
    node = found->second;
  } else {
    if (nodes_.size() >= std::numeric_limits<NodeId>::max()) {
      throw std::length_error("LockOrderGraph: too many pseudo-locks");
    }
    node = static_cast<NodeId>(nodes_.size());
    nodes_.push_back(lock);
    successors_.emplace_back();
    live_.emplace(lock, node);
  }
  recent = RecentNode{true, lock.context, lock.stream, lock.lock, node};
  return node;
}

std::optional<NodeId> LockOrderGraph::find_node(const PseudoLock& lock) const {
  if (auto found = live_.find(lock); found != live_.end()) return found->second;
  return std::nullopt;
}

void LockOrderGraph::retire(const PseudoLock& lock) {
  live_.erase(lock);
  recent_[static_cast<std::size_t>(lock.kind)].valid = false;
}

std::optional<EdgeId> LockOrderGraph::find_edge(NodeId from, NodeId to) const {
  const std::uint64_t wanted = key(from, to);
  RecentEdge& recent = recent_edges_[recent_slot(wanted)];
  if (recent.valid && recent.key == wanted) return recent.edge;
  if (auto found = edge_ids_.find(wanted); found != edge_ids_.end()) {
    recent = RecentEdge{true, wanted, found->second};
    return found->second;
  }
  return std::nullopt;
}

EdgeId LockOrderGraph::add_edge(NodeId from, NodeId to) {
  const auto edge = static_cast<EdgeId>(edge_ids_.size());
  const std::uint64_t added = key(from, to);
  if (!edge_ids_.emplace(added, edge).second) {
    throw std::logic_error("LockOrderGraph::add_edge: the edge exists already");
  }
  successors_[from].push_back(to);
  recent_edges_[recent_slot(added)] = RecentEdge{true, added, edge};
  return edge;
}

std::optional<std::vector<NodeId>> LockOrderGraph::shortest_cycle_through(NodeId from,
                                                                          NodeId to) const {
  if (from == to) return std::vector<NodeId>{from};
  // Breadth-first from `to` until `from` is reached; the path plus from -> to is the cycle.
  constexpr NodeId unseen = std::numeric_limits<NodeId>::max();
  std::vector<NodeId> parent(nodes_.size(), unseen);
  std::deque<NodeId> frontier{to};
  parent[to] = to;
  while (!frontier.empty() && parent[from] == unseen) {
    const NodeId node = frontier.front();
    frontier.pop_front();
    for (NodeId next : successors_[node]) {
      if (parent[next] != unseen) continue;
      parent[next] = node;
      frontier.push_back(next);
    }
  }
  if (parent[from] == unseen) return std::nullopt;
  // Walk back from `from` to `to`: that lists the path reversed, ending with `to`.
  std::vector<NodeId> reversed_path;
  for (NodeId node = from; node != to; node = parent[node]) reversed_path.push_back(node);
  reversed_path.push_back(to);
  // reversed_path = [from, ..., to]; the cycle in edge order is from -> to -> ... -> from.
  std::vector<NodeId> cycle{from};
  cycle.insert(cycle.end(), reversed_path.rbegin(), reversed_path.rend() - 1);
  return cycle;
}

bool LockOrderGraph::has_shortcut(const std::vector<NodeId>& cycle,
                                  const std::function<bool(EdgeId, EdgeId)>& same_origin) const {
  const std::size_t length = cycle.size();
  for (std::size_t i = 0; i < length; ++i) {
    // Skipping at least one node and landing back on a node of the cycle other than cycle[i].
    for (std::size_t skip = 2; skip < length; ++skip) {
      const std::size_t j = (i + skip) % length;
      const auto shortcut = find_edge(cycle[i], cycle[j]);
      if (!shortcut) continue;
      bool same = true;
      for (std::size_t step = 0; step < skip && same; ++step) {
        const auto detour_edge =
            find_edge(cycle[(i + step) % length], cycle[(i + step + 1) % length]);
        same = detour_edge && same_origin(*shortcut, *detour_edge);
      }
      if (same) return true;
    }
  }
  return false;
}

std::vector<NodeId> LockOrderGraph::canonical(std::vector<NodeId> cycle) {
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

}  // namespace gilsan::checkers
