// LockOrderGraph alone: cycle search, shortcuts, canonical form, retiring nodes and reusing their slots.
// test_lock_order_graph_reference.cpp checks it against a plain model, at random.
#include <gtest/gtest.h>

#include "checkers/core/lock_order_graph.h"

namespace gilsan::checkers {
namespace {

class LockOrderGraphTest : public ::testing::Test {
 protected:
  NodeId lock(std::uint64_t id) {
    return graph.node_for(PseudoLock::user_lock(id, "L" + std::to_string(id)));
  }
  void edge(NodeId from, NodeId to) { ASSERT_TRUE(graph.add_edge(from, to)); }
  LockOrderGraph graph;
};

TEST_F(LockOrderGraphTest, InterningGivesOneNodePerPseudoLock) {
  EXPECT_EQ(graph.node_for(PseudoLock::gil()), graph.node_for(PseudoLock::gil()));
  EXPECT_EQ(lock(1), lock(1));
  EXPECT_NE(lock(1), lock(2));
  // Named differently, the same lock id is the same lock.
  EXPECT_EQ(graph.node_for(PseudoLock::user_lock(7, "a")),
            graph.node_for(PseudoLock::user_lock(7, "b")));
  EXPECT_EQ(graph.node_count(), 4u);
}

TEST_F(LockOrderGraphTest, TwoNodeCycleListsTheNewEdgeFirst) {
  const NodeId a = lock(1), b = lock(2);
  edge(a, b);
  EXPECT_FALSE(graph.shortest_cycle_through(a, b));
  edge(b, a);
  EXPECT_EQ(graph.shortest_cycle_through(b, a), (std::vector<NodeId>{b, a}));
}

TEST_F(LockOrderGraphTest, ThreeAndFiveNodeCyclesAreFoundOnTheClosingEdge) {
  std::vector<NodeId> nodes;
  for (std::uint64_t i = 0; i < 5; ++i) nodes.push_back(lock(i));
  for (std::size_t i = 0; i + 1 < 5; ++i) {
    edge(nodes[i], nodes[i + 1]);
    EXPECT_FALSE(graph.shortest_cycle_through(nodes[i], nodes[i + 1]));
  }
  edge(nodes[4], nodes[0]);
  EXPECT_EQ(graph.shortest_cycle_through(nodes[4], nodes[0]),
            (std::vector<NodeId>{nodes[4], nodes[0], nodes[1], nodes[2], nodes[3]}));

  const NodeId x = lock(10), y = lock(11), z = lock(12);
  edge(x, y);
  edge(y, z);
  edge(z, x);
  EXPECT_EQ(graph.shortest_cycle_through(z, x), (std::vector<NodeId>{z, x, y}));
}

TEST_F(LockOrderGraphTest, TheShortestOfSeveralCyclesIsChosen) {
  const NodeId a = lock(1), b = lock(2), c = lock(3), d = lock(4);
  edge(b, c);
  edge(c, d);
  edge(d, a);  // b -> c -> d -> a: long way back
  edge(b, a);  // b -> a: short way back
  edge(a, b);
  EXPECT_EQ(graph.shortest_cycle_through(a, b), (std::vector<NodeId>{a, b}));
}

TEST_F(LockOrderGraphTest, SelfEdgeIsACycleOfOne) {
  const NodeId a = lock(1);
  edge(a, a);
  EXPECT_EQ(graph.shortest_cycle_through(a, a), (std::vector<NodeId>{a}));
}

TEST_F(LockOrderGraphTest, AnEdgeCanOnlyBeAddedOnce) {
  const NodeId a = lock(1), b = lock(2);
  const EdgeId first = *graph.add_edge(a, b);
  EXPECT_EQ(graph.find_edge(a, b), first);
  EXPECT_FALSE(graph.find_edge(b, a));
  EXPECT_THROW(graph.add_edge(a, b), std::logic_error);
}

TEST_F(LockOrderGraphTest, ShortcutCountsOnlyWhenTheDetourHasTheSameOrigin) {
  const NodeId a = lock(1), b = lock(2), c = lock(3);
  // a -> b -> c -> a with a shortcut a -> c skipping b.
  const EdgeId ab = *graph.add_edge(a, b);
  const EdgeId bc = *graph.add_edge(b, c);
  graph.add_edge(c, a);
  const EdgeId ac = *graph.add_edge(a, c);
  const std::vector<NodeId> cycle{a, b, c};
  EXPECT_TRUE(graph.has_shortcut(cycle, [](EdgeId, EdgeId) { return true; }));
  EXPECT_FALSE(graph.has_shortcut(cycle, [](EdgeId, EdgeId) { return false; }));
  // Only the detour a -> b -> c matters, not the edge c -> a that closes the cycle.
  EXPECT_TRUE(graph.has_shortcut(cycle, [&](EdgeId shortcut, EdgeId detour) {
    return shortcut == ac && (detour == ab || detour == bc);
  }));
  EXPECT_FALSE(graph.has_shortcut(cycle, [&](EdgeId, EdgeId detour) { return detour == ab; }));
}

TEST_F(LockOrderGraphTest, SelfEdgesAreNotShortcuts) {
  const NodeId a = lock(1), b = lock(2);
  edge(a, b);
  edge(b, a);
  edge(a, a);
  EXPECT_FALSE(graph.has_shortcut({a, b}, [](EdgeId, EdgeId) { return true; }));
}

TEST_F(LockOrderGraphTest, CanonicalFormStartsAtTheOldestNodeForEveryRotation) {
  const NodeId a = lock(1), b = lock(2), c = lock(3);
  EXPECT_EQ(graph.canonical({b, c, a}), (std::vector<NodeId>{a, b, c}));
  EXPECT_EQ(graph.canonical({c, a, b}), (std::vector<NodeId>{a, b, c}));
  EXPECT_EQ(graph.canonical({a, b, c}), (std::vector<NodeId>{a, b, c}));
  // A slot made free and used again holds a younger node, whatever its slot number.
  graph.retire(PseudoLock::user_lock(1, ""));
  const NodeId a_again = lock(1);
  EXPECT_EQ(graph.canonical({a_again, b, c}), (std::vector<NodeId>{b, c, a_again}));
  EXPECT_GT(graph.serial(a_again), graph.serial(c));
}

TEST_F(LockOrderGraphTest, RetiredPseudoLockComesBackAsAFreshNodeWithoutEdges) {
  const NodeId a = lock(1), b = lock(2);
  edge(a, b);
  graph.retire(PseudoLock::user_lock(2, ""));
  EXPECT_FALSE(graph.find_node(PseudoLock::user_lock(2, "")));
  EXPECT_FALSE(graph.alive(b));
  EXPECT_FALSE(graph.find_edge(a, b));
  const NodeId b_again = lock(2);
  EXPECT_NE(b_again, b);
  EXPECT_TRUE(graph.alive(b_again));
  edge(b_again, a);
  EXPECT_FALSE(graph.shortest_cycle_through(b_again, a));
  EXPECT_EQ(graph.check_invariants(), "");
}

TEST_F(LockOrderGraphTest, ANodeKeptAfterItsPseudoLockWentDrawsNoEdges) {
  const NodeId a = lock(1), b = lock(2);
  graph.retire(PseudoLock::user_lock(2, ""));
  const NodeId c = lock(3);  // made in b's slot
  EXPECT_EQ(static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(b));
  EXPECT_FALSE(graph.add_edge(b, a));
  EXPECT_FALSE(graph.add_edge(a, b));
  EXPECT_EQ(graph.edge_count(), 0u);
  edge(a, c);
  EXPECT_FALSE(graph.find_edge(a, b));  // the old id does not reach the slot's new node
  EXPECT_EQ(graph.check_invariants(), "");
}

TEST_F(LockOrderGraphTest, RetiringTakesEveryEdgeInAndOutAlongAndTheirIdsAreReused) {
  const NodeId gil = graph.node_for(PseudoLock::gil());
  const NodeId a = lock(1), b = lock(2);
  edge(gil, a);
  edge(a, gil);
  edge(a, a);
  edge(b, a);
  edge(a, b);
  edge(gil, b);
  EXPECT_EQ(graph.edge_count(), 6u);
  graph.retire(PseudoLock::user_lock(1, ""));
  EXPECT_EQ(graph.edge_count(), 1u);  // gil -> b
  EXPECT_TRUE(graph.find_edge(gil, b));
  EXPECT_EQ(graph.check_invariants(), "");
  const NodeId c = lock(3);
  edge(c, gil);
  edge(b, c);
  EXPECT_EQ(graph.edge_id_bound(), 6u);  // no new id while freed ones are left
  EXPECT_TRUE(graph.shortest_cycle_through(c, gil));
  EXPECT_EQ(graph.check_invariants(), "");
}

TEST_F(LockOrderGraphTest, AStreamPerRequestKeepsTheGraphTheSizeOfWhatIsAlive) {
  // What a service does under the injected sanitizer: per request a new stream, whose completion
  // the GIL-holding thread waits for and whose host function takes the GIL, then the stream goes.
  const NodeId gil = graph.node_for(PseudoLock::gil());
  const NodeId callback_thread = graph.node_for(PseudoLock::callback_thread(1));
  for (std::uint64_t request = 0; request < 100'000; ++request) {
    const PseudoLock stream = PseudoLock::stream_completion(1, 0x1000 + request * 16);
    const NodeId completion = graph.node_for(stream);
    edge(completion, callback_thread);
    edge(completion, gil);
    graph.retire(stream);
  }
  EXPECT_EQ(graph.node_count(), 2u);
  EXPECT_LE(graph.node_slots(), 3u);
  EXPECT_EQ(graph.edge_count(), 0u);
  EXPECT_LE(graph.edge_id_bound(), 2u);
  EXPECT_EQ(graph.check_invariants(), "");
}

}  // namespace
}  // namespace gilsan::checkers
