// LockOrderGraph: which pseudo-locks have been waited for while holding which others.
//
// Nodes are pseudo-locks, interned on first use. An edge A -> B records that some thread held A
// while it acquired or waited for B; a cycle means the threads involved can deadlock under some
// timing, whether or not this run did. The graph only stores structure: the evidence for each edge
// (thread, stack, call) is kept by the caller, indexed by the EdgeId that add_edge returns.
//
// Cycle search is done when an edge is added (the only moment a new cycle can appear): a
// breadth-first search from the new edge's head back to its tail gives the shortest cycle through
// the new edge, in O(live nodes + live edges).
//
// Bounded: a pseudo-lock that is gone (a stream, context or lock destroyed) takes its node and every
// edge into or out of it along (no thread can hold or wait for it again, so no later deadlock runs
// through it), and their slots are reused, as Abseil's graphcycles reuses its node ids. A NodeId
// carries its slot's generation, so an id kept after its node went (a host function still running on
// a destroyed stream) is told apart from the slot's next node: alive() is false for it, it has no
// edges, and add_edge from it is refused. A process that makes and drops a stream per request keeps
// a graph the size of what is alive at once. An EdgeId is reused likewise once its edge went.
//
// Not thread-safe, not even for concurrent reads (node_for and find_edge keep small caches of recent
// answers): the Sanitizer serializes access. check_invariants() (tests) checks the books and the
// caches against each other.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

// A slot index (low 32 bits) and that slot's generation when the node was made (high 32 bits).
using NodeId = std::uint64_t;
using EdgeId = std::uint32_t;

class LockOrderGraph {
 public:
  // The node that stands for `lock` now, created on first use.
  NodeId node_for(const PseudoLock& lock);
  // The pseudo-lock is gone: its node and its edges go. A later node_for of an equal pseudo-lock (a
  // reused handle or address) gets a fresh node, so it inherits no old edges.
  void retire(const PseudoLock& lock);
  std::optional<NodeId> find_node(const PseudoLock& lock) const;
  // Whether `node` is a node of the graph (not retired).
  bool alive(NodeId node) const;
  // What a live node stands for (the caller checks alive() for an id it may have kept too long).
  const PseudoLock& lock(NodeId node) const { return nodes_[slot_of(node)].lock; }
  // A number that orders nodes by when they were made and is never given twice: the key of a cycle
  // (reports made once) and the start of its canonical rotation.
  std::uint64_t serial(NodeId node) const { return nodes_[slot_of(node)].serial; }

  // The edge from -> to, if both are alive and it was added.
  std::optional<EdgeId> find_edge(NodeId from, NodeId to) const;
  // Adds from -> to, which must not exist yet; nullopt, and nothing added, when either node is not
  // alive. A self edge (from == to) is allowed: a thread that waits for something it holds itself.
  std::optional<EdgeId> add_edge(NodeId from, NodeId to);

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

  // The cycle rotated to start at its oldest node (smallest serial): equal for every rotation.
  std::vector<NodeId> canonical(std::vector<NodeId> cycle) const;

  std::size_t node_count() const { return live_.size(); }
  std::size_t edge_count() const { return edge_ids_.size(); }
  // Slots ever made (live or free for reuse): what the graph's memory grows with.
  std::size_t node_slots() const { return nodes_.size(); }
  // One past the largest EdgeId ever given: what an EdgeId-indexed book of the caller grows to.
  std::size_t edge_id_bound() const { return next_edge_id_; }

  // For tests: "" when every book agrees with every other and the caches with the books, else what
  // does not.
  std::string check_invariants() const;

 private:
  using Slot = std::uint32_t;
  struct Node {
    PseudoLock lock;
    std::uint32_t generation = 0;
    bool live = false;
    std::uint64_t serial = 0;
    std::vector<Slot> successors;
    std::vector<Slot> predecessors;
  };

  static Slot slot_of(NodeId node) { return static_cast<Slot>(node); }
  NodeId id_of(Slot slot) const { return (NodeId{nodes_[slot].generation} << 32) | slot; }
  static std::uint64_t key(Slot from, Slot to) { return (std::uint64_t{from} << 32) | to; }
  void drop_edge(Slot from, Slot to);

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
  // host function. An edge that goes takes its entry along (drop_edge).
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

  std::vector<Node> nodes_;
  std::vector<Slot> free_slots_;
  std::uint64_t next_serial_ = 0;
  std::unordered_map<PseudoLock, NodeId, PseudoLockHash> live_;
  std::unordered_map<std::uint64_t, EdgeId> edge_ids_;  // by key(from slot, to slot)
  std::vector<EdgeId> free_edge_ids_;
  EdgeId next_edge_id_ = 0;
};

}  // namespace gilsan::checkers
