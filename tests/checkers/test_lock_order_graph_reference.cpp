// LockOrderGraph against a plain reference at random: 200 seeds of 500 operations each (interning,
// retiring, adding and finding edges, from live nodes and from ids kept after their node went, and
// the shortest cycle through an edge), every answer compared with a model that keeps sets of edges
// and searches them breadth-first, and check_invariants() after every operation. The graph's caches,
// slot reuse and generations are its fast paths; the reference has none.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkers/core/lock_order_graph.h"

namespace gilsan::checkers {
namespace {

// The reference: nodes are the ids the graph gave (each given once, never reused), edges a set.
struct ReferenceGraph {
  std::map<std::uint64_t, NodeId> live;  // lock id -> node
  std::set<NodeId> gone;                  // ids whose pseudo-lock was retired
  std::set<std::pair<NodeId, NodeId>> edges;

  bool alive(NodeId node) const {
    for (const auto& [lock, id] : live) {
      if (id == node) return true;
    }
    return false;
  }
  void retire(std::uint64_t lock) {
    const auto found = live.find(lock);
    if (found == live.end()) return;
    const NodeId node = found->second;
    std::erase_if(edges, [node](const auto& edge) { return edge.first == node || edge.second == node; });
    gone.insert(node);
    live.erase(found);
  }
  // The number of edges on a shortest path from `from` to `to`, if any.
  std::optional<std::size_t> distance(NodeId from, NodeId to) const {
    std::map<NodeId, std::size_t> seen{{from, 0}};
    std::deque<NodeId> frontier{from};
    while (!frontier.empty()) {
      const NodeId node = frontier.front();
      frontier.pop_front();
      if (node == to) return seen[node];
      for (const auto& [tail, head] : edges) {
        if (tail != node || seen.contains(head)) continue;
        seen[head] = seen[node] + 1;
        frontier.push_back(head);
      }
    }
    return std::nullopt;
  }
};

PseudoLock numbered_lock(std::uint64_t id) { return PseudoLock::user_lock(id, "L" + std::to_string(id)); }

void run_graph_reference_seed(unsigned seed) {
  std::mt19937 random(seed);
  auto below = [&random](std::size_t bound) { return std::uniform_int_distribution<std::size_t>(0, bound - 1)(random); };
  LockOrderGraph graph;
  ReferenceGraph reference;
  std::set<NodeId> ever_given;
  constexpr std::uint64_t kLocks = 12;
  // Some node of either kind: mostly live ones, now and then one kept after it went.
  auto pick = [&]() -> std::optional<NodeId> {
    if (!reference.gone.empty() && below(5) == 0) {
      return *std::next(reference.gone.begin(), static_cast<long>(below(reference.gone.size())));
    }
    if (reference.live.empty()) return std::nullopt;
    return std::next(reference.live.begin(), static_cast<long>(below(reference.live.size())))->second;
  };
  for (int step = 0; step < 500; ++step) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step));
    const std::size_t operation = below(10);
    if (operation < 3) {  // intern
      const std::uint64_t lock = below(kLocks);
      const NodeId node = graph.node_for(numbered_lock(lock));
      if (const auto found = reference.live.find(lock); found != reference.live.end()) {
        ASSERT_EQ(node, found->second);
      } else {
        ASSERT_TRUE(ever_given.insert(node).second) << "an id given twice";
        reference.live[lock] = node;
      }
      ASSERT_EQ(graph.find_node(numbered_lock(lock)), node);
    } else if (operation < 4) {  // retire
      const std::uint64_t lock = below(kLocks);
      graph.retire(numbered_lock(lock));
      reference.retire(lock);
      ASSERT_FALSE(graph.find_node(numbered_lock(lock)));
    } else if (operation < 7) {  // add an edge
      const auto from = pick(), to = pick();
      if (!from || !to) continue;
      const bool both_alive = reference.alive(*from) && reference.alive(*to);
      ASSERT_EQ(graph.alive(*from), reference.alive(*from));
      ASSERT_EQ(graph.alive(*to), reference.alive(*to));
      if (both_alive && reference.edges.contains({*from, *to})) {
        ASSERT_THROW((void)graph.add_edge(*from, *to), std::logic_error);
        continue;
      }
      const auto edge = graph.add_edge(*from, *to);
      ASSERT_EQ(edge.has_value(), both_alive);
      if (!both_alive) continue;
      reference.edges.insert({*from, *to});
      ASSERT_EQ(graph.find_edge(*from, *to), edge);
      // The shortest cycle the new edge closes: a path back from its head to its tail.
      const auto cycle = graph.shortest_cycle_through(*from, *to);
      const auto back = *from == *to ? std::optional<std::size_t>(0) : reference.distance(*to, *from);
      ASSERT_EQ(cycle.has_value(), back.has_value());
      if (cycle) {
        ASSERT_EQ(cycle->size(), *back + 1);
        ASSERT_EQ(cycle->front(), *from);
        for (std::size_t i = 0; i < cycle->size(); ++i) {
          const NodeId tail = (*cycle)[i], head = (*cycle)[(i + 1) % cycle->size()];
          ASSERT_TRUE(reference.edges.contains({tail, head})) << "the cycle uses an edge that is not there";
        }
      }
    } else {  // find an edge
      const auto from = pick(), to = pick();
      if (!from || !to) continue;
      ASSERT_EQ(graph.find_edge(*from, *to).has_value(), reference.edges.contains({*from, *to}));
    }
    ASSERT_EQ(graph.node_count(), reference.live.size());
    ASSERT_EQ(graph.edge_count(), reference.edges.size());
    ASSERT_LE(graph.node_slots(), kLocks + 1);
    ASSERT_EQ(graph.check_invariants(), "");
  }
}

TEST(LockOrderGraphReference, RandomOperationsAnswerAsAPlainGraphDoes) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    run_graph_reference_seed(seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gilsan::checkers
