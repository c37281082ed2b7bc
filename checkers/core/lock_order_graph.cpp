#include "checkers/core/lock_order_graph.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>
#include <unordered_set>

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
    Slot slot = 0;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      if (nodes_.size() >= std::numeric_limits<Slot>::max()) {
        throw std::length_error("LockOrderGraph: too many live pseudo-locks");
      }
      slot = static_cast<Slot>(nodes_.size());
      nodes_.emplace_back();
    }
    Node& made = nodes_[slot];
    made.lock = lock;
    made.live = true;
    made.serial = next_serial_++;
    node = id_of(slot);
    live_.emplace(lock, node);
  }
  recent = RecentNode{true, lock.context, lock.stream, lock.lock, node};
  return node;
}

std::optional<NodeId> LockOrderGraph::find_node(const PseudoLock& lock) const {
  if (auto found = live_.find(lock); found != live_.end()) return found->second;
  return std::nullopt;
}

bool LockOrderGraph::alive(NodeId node) const {
  const Slot slot = slot_of(node);
  return slot < nodes_.size() && nodes_[slot].live && id_of(slot) == node;
}

void LockOrderGraph::drop_edge(Slot from, Slot to) {
  const auto found = edge_ids_.find(key(from, to));
  if (found == edge_ids_.end()) return;
  RecentEdge& recent = recent_edges_[recent_slot(found->first)];
  if (recent.valid && recent.key == found->first) recent.valid = false;
  free_edge_ids_.push_back(found->second);
  edge_ids_.erase(found);
}

void LockOrderGraph::retire(const PseudoLock& lock) {
  recent_[static_cast<std::size_t>(lock.kind)].valid = false;
  const auto found = live_.find(lock);
  if (found == live_.end()) return;
  const Slot slot = slot_of(found->second);
  live_.erase(found);
  Node& node = nodes_[slot];
  for (Slot to : node.successors) {
    drop_edge(slot, to);
    if (to != slot) std::erase(nodes_[to].predecessors, slot);
  }
  for (Slot from : node.predecessors) {
    drop_edge(from, slot);  // a self edge went with the successors already
    if (from != slot) std::erase(nodes_[from].successors, slot);
  }
  // The lists keep their capacity for the slot's next node.
  node.successors.clear();
  node.predecessors.clear();
  node.live = false;
  node.lock = PseudoLock{};
  ++node.generation;  // ids of the node that went no longer match the slot
  free_slots_.push_back(slot);
}

std::optional<EdgeId> LockOrderGraph::find_edge(NodeId from, NodeId to) const {
  if (!alive(from) || !alive(to)) return std::nullopt;
  const std::uint64_t wanted = key(slot_of(from), slot_of(to));
  RecentEdge& recent = recent_edges_[recent_slot(wanted)];
  if (recent.valid && recent.key == wanted) return recent.edge;
  if (auto found = edge_ids_.find(wanted); found != edge_ids_.end()) {
    recent = RecentEdge{true, wanted, found->second};
    return found->second;
  }
  return std::nullopt;
}

std::optional<EdgeId> LockOrderGraph::add_edge(NodeId from, NodeId to) {
  if (!alive(from) || !alive(to)) return std::nullopt;
  const Slot tail = slot_of(from);
  const Slot head = slot_of(to);
  const std::uint64_t added = key(tail, head);
  if (edge_ids_.contains(added)) throw std::logic_error("LockOrderGraph::add_edge: the edge exists already");
  EdgeId edge = 0;
  if (!free_edge_ids_.empty()) {
    edge = free_edge_ids_.back();
    free_edge_ids_.pop_back();
  } else {
    if (next_edge_id_ == std::numeric_limits<EdgeId>::max()) {
      throw std::length_error("LockOrderGraph: too many live edges");
    }
    edge = next_edge_id_++;
  }
  edge_ids_.emplace(added, edge);
  nodes_[tail].successors.push_back(head);
  nodes_[head].predecessors.push_back(tail);
  recent_edges_[recent_slot(added)] = RecentEdge{true, added, edge};
  return edge;
}

std::optional<std::vector<NodeId>> LockOrderGraph::shortest_cycle_through(NodeId from,
                                                                          NodeId to) const {
  if (!find_edge(from, to)) return std::nullopt;
  if (from == to) return std::vector<NodeId>{from};
  // Breadth-first from `to` until `from` is reached; the path plus from -> to is the cycle.
  constexpr Slot unseen = std::numeric_limits<Slot>::max();
  const Slot start = slot_of(to);
  const Slot goal = slot_of(from);
  std::vector<Slot> parent(nodes_.size(), unseen);
  std::deque<Slot> frontier{start};
  parent[start] = start;
  while (!frontier.empty() && parent[goal] == unseen) {
    const Slot node = frontier.front();
    frontier.pop_front();
    for (Slot next : nodes_[node].successors) {
      if (parent[next] != unseen) continue;
      parent[next] = node;
      frontier.push_back(next);
    }
  }
  if (parent[goal] == unseen) return std::nullopt;
  // Walk back from `from` to `to`: that lists the path reversed, ending with `to`.
  std::vector<NodeId> reversed_path;
  for (Slot node = goal; node != start; node = parent[node]) reversed_path.push_back(id_of(node));
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

std::vector<NodeId> LockOrderGraph::canonical(std::vector<NodeId> cycle) const {
  const auto oldest = std::min_element(cycle.begin(), cycle.end(),
                                       [this](NodeId a, NodeId b) { return serial(a) < serial(b); });
  std::rotate(cycle.begin(), oldest, cycle.end());
  return cycle;
}

std::string LockOrderGraph::check_invariants() const {
  std::size_t live_nodes = 0;
  std::size_t successor_count = 0;
  std::unordered_set<std::uint64_t> serials;
  for (Slot slot = 0; slot < nodes_.size(); ++slot) {
    const Node& node = nodes_[slot];
    const std::string where = "slot " + std::to_string(slot) + ": ";
    if (!node.live) {
      if (!node.successors.empty() || !node.predecessors.empty()) return where + "a free slot has edges";
      if (std::count(free_slots_.begin(), free_slots_.end(), slot) != 1) return where + "free, not once on the free list";
      continue;
    }
    ++live_nodes;
    if (!serials.insert(node.serial).second) return where + "a serial given twice";
    if (node.serial >= next_serial_) return where + "a serial not given yet";
    const auto found = live_.find(node.lock);
    if (found == live_.end() || found->second != id_of(slot)) return where + "live, not found by its pseudo-lock";
    if (std::count(free_slots_.begin(), free_slots_.end(), slot) != 0) return where + "live and on the free list";
    for (Slot to : node.successors) {
      ++successor_count;
      if (to >= nodes_.size() || !nodes_[to].live) return where + "an edge to a free slot";
      if (std::count(node.successors.begin(), node.successors.end(), to) != 1) return where + "an edge listed twice";
      if (std::count(nodes_[to].predecessors.begin(), nodes_[to].predecessors.end(), slot) != 1)
        return where + "an edge its head does not list as coming in";
      if (!edge_ids_.contains(key(slot, to))) return where + "an edge without an id";
    }
    for (Slot from : node.predecessors) {
      if (from >= nodes_.size() || !nodes_[from].live) return where + "an edge from a free slot";
      if (std::count(nodes_[from].successors.begin(), nodes_[from].successors.end(), slot) != 1)
        return where + "an edge in that its tail does not list";
    }
  }
  if (live_nodes != live_.size()) return "live pseudo-locks and live slots differ in number";
  if (successor_count != edge_ids_.size()) return "edge ids and listed edges differ in number";
  std::unordered_set<EdgeId> ids;
  for (const auto& [edge_key, edge] : edge_ids_) {
    if (!ids.insert(edge).second) return "an edge id given to two edges";
    if (edge >= next_edge_id_) return "an edge id not given yet";
  }
  for (EdgeId edge : free_edge_ids_) {
    if (!ids.insert(edge).second) return "edge id " + std::to_string(edge) + " both free and in use (or free twice)";
  }
  if (ids.size() != next_edge_id_) return "an edge id neither free nor in use";
  for (const RecentEdge& recent : recent_edges_) {
    if (!recent.valid) continue;
    const auto found = edge_ids_.find(recent.key);
    if (found == edge_ids_.end() || found->second != recent.edge) return "a recent edge the books do not have";
  }
  for (std::size_t kind = 0; kind < kKinds; ++kind) {
    const RecentNode& recent = recent_[kind];
    if (!recent.valid) continue;
    if (!alive(recent.node)) return "a recent node that went";
    const PseudoLock& cached = lock(recent.node);
    if (static_cast<std::size_t>(cached.kind) != kind || cached.context != recent.context ||
        cached.stream != recent.stream || cached.lock != recent.lock)
      return "a recent node that stands for another pseudo-lock";
  }
  return "";
}

}  // namespace gilsan::checkers
