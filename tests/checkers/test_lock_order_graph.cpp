// LockOrderGraph alone: cycle search, shortcuts, canonical form, retiring nodes.
#include <gtest/gtest.h>

#include "checkers/core/lock_order_graph.h"

namespace gilsan::checkers {
namespace {

class LockOrderGraphTest : public ::testing::Test {
 protected:
  NodeId lock(std::uint64_t id) {
    return graph.node_for(PseudoLock::user_lock(id, "L" + std::to_string(id)));
  }
  void edge(NodeId from, NodeId to) { graph.add_edge(from, to); }
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
  const EdgeId first = graph.add_edge(a, b);
  EXPECT_EQ(graph.find_edge(a, b), first);
  EXPECT_FALSE(graph.find_edge(b, a));
  EXPECT_THROW(graph.add_edge(a, b), std::logic_error);
}

TEST_F(LockOrderGraphTest, ShortcutCountsOnlyWhenTheDetourHasTheSameOrigin) {
  const NodeId a = lock(1), b = lock(2), c = lock(3);
  // a -> b -> c -> a with a shortcut a -> c skipping b.
  const EdgeId ab = graph.add_edge(a, b);
  const EdgeId bc = graph.add_edge(b, c);
  graph.add_edge(c, a);
  const EdgeId ac = graph.add_edge(a, c);
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

TEST_F(LockOrderGraphTest, CanonicalFormIsTheSameForEveryRotation) {
  EXPECT_EQ(LockOrderGraph::canonical({5, 2, 9}), (std::vector<NodeId>{2, 9, 5}));
  EXPECT_EQ(LockOrderGraph::canonical({9, 5, 2}), (std::vector<NodeId>{2, 9, 5}));
  EXPECT_EQ(LockOrderGraph::canonical({2, 9, 5}), (std::vector<NodeId>{2, 9, 5}));
}

TEST_F(LockOrderGraphTest, RetiredPseudoLockComesBackAsAFreshNodeWithoutEdges) {
  const NodeId a = lock(1), b = lock(2);
  edge(a, b);
  graph.retire(PseudoLock::user_lock(2, ""));
  EXPECT_FALSE(graph.find_node(PseudoLock::user_lock(2, "")));
  const NodeId b_again = lock(2);
  EXPECT_NE(b_again, b);
  edge(b_again, a);
  EXPECT_FALSE(graph.shortest_cycle_through(b_again, a));
  EXPECT_EQ(graph.lock(b).lock, 2u);  // the old node still describes what it was
}

}  // namespace
}  // namespace gilsan::checkers
