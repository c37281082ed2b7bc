// LockOrderGraph: which pseudo-locks have been waited for while holding which others.
//
// Nodes are pseudo-locks, interned on first use. An edge A -> B records that some thread held A
// while it acquired or waited for B; a cycle means the threads involved can deadlock under some
// timing, whether or not this run did. The graph only stores structure: the evidence for each edge
// (thread, stack, call) is kept by the caller, indexed by the EdgeId that add_edge returns.
//
// Cycle search is done when an edge is added (the only moment a new cycle can appear): a
// breadth-first search from the new edge's head back to its tail gives the shortest cycle through
// the new edge, in O(nodes + edges). Edges are never removed, so the total work is bounded by the
// number of distinct edges, not by the number of events. Not thread-safe, not even for concurrent
// reads (node_for and find_edge keep small caches of recent answers): the Sanitizer serializes access.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

using NodeId = std::uint32_t;
using EdgeId = std::uint32_t;

class LockOrderGraph {
 public:
  // The node that stands for `lock` now, created on first use.
  NodeId node_for(const PseudoLock& lock);
  // The pseudo-lock is gone (stream or context destroyed, lock freed): a later node_for of an equal
  // pseudo-lock (a reused handle or address) gets a fresh node, so it inherits no old edges.
  void retire(const PseudoLock& lock);
  std::optional<NodeId> find_node(const PseudoLock& lock) const;
  const PseudoLock& lock(NodeId node) const { return nodes_[node]; }

  std::optional<EdgeId> find_edge(NodeId from, NodeId to) const;
  // Adds from -> to, which must not exist yet. A self edge (from == to) is allowed: a thread that
  // waits for something it holds itself.
  EdgeId add_edge(NodeId from, NodeId to);

  // The shortest cycle that uses the existing edge from -> to, as its nodes in edge order starting
  // with `from` ([from] for a self edge), or nullopt when the edge closes no cycle.
  std::optional<std::vector<NodeId>> shortest_cycle_through(NodeId from, NodeId to) const;

  // Whether `cycle` only repeats a shorter one: an edge i -> j between two of its nodes that are
  // not consecutive (a shortcut) where the shortcut and every edge of the detour it skips (i -> ...
  // -> j) have the same origin. A host function holds several pseudo-locks at once and waits from
  // all of them, so its thread draws both "completion -> callback thread -> GIL" and "completion ->
  // GIL"; a cycle through the detour is the same deadlock as the one through the shortcut. Detours
  // drawn by other threads are distinct deadlocks and do not count.
  bool has_shortcut(const std::vector<NodeId>& cycle,
                    const std::function<bool(EdgeId, EdgeId)>& same_origin) const;

  // The cycle rotated to start at its smallest node: equal for every rotation of one cycle.
  static std::vector<NodeId> canonical(std::vector<NodeId> cycle);

  std::size_t node_count() const { return nodes_.size(); }
  std::size_t edge_count() const { return edge_ids_.size(); }

 private:
  static std::uint64_t key(NodeId from, NodeId to) { return (std::uint64_t{from} << 32) | to; }

  // The node node_for last gave for each kind of pseudo-lock. Every host function asks for the same
  // few nodes as the one before it (its stream's and context's), so most lookups end here without
  // hashing a PseudoLock. retire() forgets the entry of the retired kind.
  struct RecentNode {
    bool valid = false;
    Handle context = 0;
    Handle stream = 0;
    std::uint64_t lock = 0;
    NodeId node = 0;
  };
  static constexpr std::size_t kKinds = static_cast<std::size_t>(PseudoLockKind::user_lock) + 1;
  std::array<RecentNode, kKinds> recent_{};
  // Edges found or added lately, by a hash of their key: the same few edges are looked up for every
  // host function. Edges are never removed, so an entry never goes stale.
  struct RecentEdge {
    bool valid = false;
    std::uint64_t key = 0;
    EdgeId edge = 0;
  };
  static constexpr std::size_t kRecentEdges = 64;
  mutable std::array<RecentEdge, kRecentEdges> recent_edges_{};
  static std::size_t recent_slot(std::uint64_t key) {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 58);  // the top 6 bits
  }

  std::vector<PseudoLock> nodes_;
  std::unordered_map<PseudoLock, NodeId, PseudoLockHash> live_;
  std::vector<std::vector<NodeId>> successors_;
  std::unordered_map<std::uint64_t, EdgeId> edge_ids_;
};

}  // namespace gilsan::checkers
