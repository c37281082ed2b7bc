// The forwarding driver's book of graph host nodes (harness/cudashim/graph_host_nodes.h) against a plain
// reference of what a driver runs: named cases for each call the book follows, and random sequences
// holding the book's promise: a launch announces what it runs, less only what the header says the book
// cannot follow, and never a run the driver does not make (one announced and never begun would be
// reported lost at exit). Handles are made-up addresses: the book never dereferences them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "harness/cudashim/graph_host_nodes.h"

namespace gilsan::cudashim {
namespace {

// Handles never reused within one test binary: the book is one per process.
std::uintptr_t g_next_handle = 0x1000;
template <typename Handle>
Handle fresh() {
  g_next_handle += 0x10;
  return reinterpret_cast<Handle>(g_next_handle);
}

// Records live as long as the test binary, as the shim's lasting records do.
HostFunctionRecord* fresh_record() {
  static std::deque<HostFunctionRecord> records;
  return &records.emplace_back();
}

std::vector<HostFunctionRecord*> sorted(std::vector<HostFunctionRecord*> records) {
  std::sort(records.begin(), records.end());
  return records;
}

TEST(GraphHostNodes, AnExecutableGraphRunsItsGraphsNodesAsTheyWereAtInstantiation) {
  const auto graph = fresh<CUgraph>();
  const auto node = fresh<CUgraphNode>();
  HostFunctionRecord* first = fresh_record();
  graph_node_added(graph, node, first);
  const auto exec = fresh<CUgraphExec>();
  graph_instantiated(graph, exec);
  HostFunctionRecord* second = fresh_record();
  graph_node_replaced(node, second, nullptr);
  EXPECT_EQ(records_of(exec), std::vector{first});
  const auto later = fresh<CUgraphExec>();
  graph_instantiated(graph, later);
  EXPECT_EQ(records_of(later), std::vector{second});
}

// What the H100 run of the wrapper sequences found: an update makes the exec run the other graph's nodes.
TEST(GraphHostNodes, AnUpdatedExecutableGraphRunsTheUpdatingGraphsNodes) {
  const auto origin = fresh<CUgraph>();
  const auto other = fresh<CUgraph>();
  HostFunctionRecord* before = fresh_record();
  HostFunctionRecord* after = fresh_record();
  graph_node_added(origin, fresh<CUgraphNode>(), before);
  graph_node_added(other, fresh<CUgraphNode>(), after);
  const auto exec = fresh<CUgraphExec>();
  graph_instantiated(origin, exec);
  exec_updated(exec, other);
  EXPECT_EQ(records_of(exec), std::vector{after});
}

TEST(GraphHostNodes, AnExecNodeSetTheBookCannotPlaceStopsThatExecsAnnouncementsUntilAnUpdate) {
  const auto graph = fresh<CUgraph>();
  const auto other = fresh<CUgraph>();
  const auto node = fresh<CUgraphNode>();
  HostFunctionRecord* record = fresh_record();
  graph_node_added(graph, node, record);
  graph_node_added(other, fresh<CUgraphNode>(), fresh_record());
  const auto exec = fresh<CUgraphExec>();
  graph_instantiated(graph, exec);
  exec_updated(exec, other);  // the exec's nodes can no longer be named
  exec_node_replaced(exec, node, fresh_record());
  EXPECT_TRUE(records_of(exec).empty());
  exec_updated(exec, graph);
  EXPECT_EQ(records_of(exec), std::vector{record});
  HostFunctionRecord* replacement = fresh_record();
  exec_node_replaced(exec, node, replacement);  // named by the origin's handle again
  EXPECT_EQ(records_of(exec), std::vector{replacement});
}

TEST(GraphHostNodes, ACloneFollowsItsMatchedNodesAndStopsAnnouncingARecordSetOnAnUnmatchedOne) {
  const auto original = fresh<CUgraph>();
  const auto matched = fresh<CUgraphNode>();
  const auto unmatched = fresh<CUgraphNode>();
  HostFunctionRecord* kept = fresh_record();
  HostFunctionRecord* lost_track = fresh_record();
  graph_node_added(original, matched, kept);
  graph_node_added(original, unmatched, lost_track);
  EXPECT_EQ(known_host_nodes(original), (std::vector{matched, unmatched}));
  const auto clone = fresh<CUgraph>();
  const auto matched_in_clone = fresh<CUgraphNode>();
  graph_cloned(original, clone, {{matched, matched_in_clone}, {unmatched, nullptr}});
  HostFunctionRecord* on_clone = fresh_record();
  ASSERT_TRUE(graph_node_known(matched_in_clone));
  graph_node_replaced(matched_in_clone, on_clone, nullptr);
  const auto unknown = fresh<CUgraphNode>();  // the clone's copy of `unmatched`, which the driver did not name
  ASSERT_FALSE(graph_node_known(unknown));
  graph_node_replaced(unknown, fresh_record(), lost_track);
  const auto original_exec = fresh<CUgraphExec>();
  const auto clone_exec = fresh<CUgraphExec>();
  graph_instantiated(original, original_exec);
  graph_instantiated(clone, clone_exec);
  EXPECT_EQ(records_of(original_exec), std::vector{kept});
  EXPECT_EQ(records_of(clone_exec), std::vector{on_clone});
}

TEST(GraphHostNodes, AParentHoldsACopyOfItsChildGraph) {
  const auto parent = fresh<CUgraph>();
  const auto child = fresh<CUgraph>();
  const auto node = fresh<CUgraphNode>();
  HostFunctionRecord* copied = fresh_record();
  graph_node_added(child, node, copied);
  child_graph_added(parent, child);
  graph_node_replaced(node, fresh_record(), nullptr);
  graph_destroyed(child);
  const auto exec = fresh<CUgraphExec>();
  graph_instantiated(parent, exec);
  EXPECT_EQ(records_of(exec), std::vector{copied});
  exec_destroyed(exec);
  EXPECT_TRUE(records_of(exec).empty());
}

// What cuda.core's own tests do: a node destroyed after one instantiation and a new one added; the new
// instantiation runs only the new node, the old one still the old.
TEST(GraphHostNodes, ADestroyedNodeLeavesLaterInstantiationsButNotEarlierOnes) {
  const auto graph = fresh<CUgraph>();
  const auto old_node = fresh<CUgraphNode>();
  HostFunctionRecord* old_record = fresh_record();
  graph_node_added(graph, old_node, old_record);
  const auto old_exec = fresh<CUgraphExec>();
  graph_instantiated(graph, old_exec);
  graph_node_destroyed(old_node, nullptr);
  EXPECT_FALSE(graph_node_known(old_node));
  HostFunctionRecord* new_record = fresh_record();
  graph_node_added(graph, fresh<CUgraphNode>(), new_record);
  const auto new_exec = fresh<CUgraphExec>();
  graph_instantiated(graph, new_exec);
  EXPECT_EQ(records_of(old_exec), std::vector{old_record});
  EXPECT_EQ(records_of(new_exec), std::vector{new_record});
  // A node the book cannot place: its record is no longer announced by anything.
  HostFunctionRecord* unplaced = fresh_record();
  graph_node_destroyed(fresh<CUgraphNode>(), unplaced);
  EXPECT_FALSE(unplaced->announced.load());
}

// A plain model of what the driver runs: every node has a handle, clones' and child graphs' included.
// Beside it, what the book is told of: which handles it knows, which records it stopped announcing and
// which executable graphs it stopped following, as the header says it must.
struct ModelNode {
  CUgraphNode handle;
  HostFunctionRecord* record;
  bool book_knows;  // the book was told this handle (added, or matched in a clone)
};
struct ModelExec {
  CUgraph origin;
  std::vector<ModelNode> nodes;  // named by the origin's handles, as the driver names them
  bool followed = true;
};

class RandomGraphs {
 public:
  explicit RandomGraphs(unsigned seed) : random_(seed) {}

  // One call, told to the book as the forwarding driver's wrappers tell it.
  void step() {
    switch (pick(10)) {
      case 0: graphs_[fresh<CUgraph>()]; break;
      case 1: add_node(); break;
      case 2: set_node(); break;
      case 3: clone(); break;
      case 4: nest(); break;
      case 5: instantiate(); break;
      case 6: set_exec_node(); break;
      case 7: update(); break;
      case 8: destroy(); break;
      case 9: destroy_node(); break;
    }
  }

  // What the book promises, exec by exec: every run announced, but for the records and executable graphs
  // it could not follow, and never a run the driver does not make.
  void check() const {
    for (const auto& [exec, model] : execs_) {
      std::vector<HostFunctionRecord*> runs;
      std::vector<HostFunctionRecord*> expected;
      for (const ModelNode& node : model.nodes) {
        runs.push_back(node.record);
        if (model.followed && !unannounced_.contains(node.record)) expected.push_back(node.record);
      }
      const std::vector<HostFunctionRecord*> announced = sorted(records_of(exec));
      runs = sorted(runs);
      ASSERT_TRUE(std::includes(runs.begin(), runs.end(), announced.begin(), announced.end()))
          << "a launch would announce a run the driver never makes";
      ASSERT_EQ(announced, sorted(expected)) << "a launch announces other than what the book could follow";
    }
  }

 private:
  int pick(int count) { return std::uniform_int_distribution<int>(0, count - 1)(random_); }
  template <typename Map>
  typename Map::iterator any(Map& map) {
    if (map.empty()) return map.end();
    auto found = map.begin();
    std::advance(found, pick(static_cast<int>(map.size())));
    return found;
  }

  void add_node() {
    auto graph = any(graphs_);
    if (graph == graphs_.end()) return;
    const ModelNode node{fresh<CUgraphNode>(), fresh_record(), true};
    graph->second.push_back(node);
    graph_node_added(graph->first, node.handle, node.record);
  }
  void set_node() {
    auto graph = any(graphs_);
    if (graph == graphs_.end() || graph->second.empty()) return;
    ModelNode& node = graph->second[static_cast<std::size_t>(pick(static_cast<int>(graph->second.size())))];
    ASSERT_EQ(graph_node_known(node.handle), node.book_knows);
    HostFunctionRecord* replaced = node.book_knows ? nullptr : node.record;  // as the wrapper reads it
    node.record = fresh_record();
    if (!node.book_knows) {  // neither the replaced record nor its replacement is announced any more
      unannounced_.insert(replaced);
      unannounced_.insert(node.record);
    }
    graph_node_replaced(node.handle, node.record, replaced);
  }
  void clone() {
    auto original = any(graphs_);
    if (original == graphs_.end()) return;
    const auto clone = fresh<CUgraph>();
    std::vector<ModelNode> copied;
    std::map<CUgraphNode, std::size_t> in_clone;
    for (const ModelNode& node : original->second) {
      copied.push_back({fresh<CUgraphNode>(), node.record, false});
      in_clone[node.handle] = copied.size() - 1;
    }
    std::vector<std::pair<CUgraphNode, CUgraphNode>> matches;
    for (CUgraphNode node : known_host_nodes(original->first)) {
      ModelNode& copy = copied[in_clone.at(node)];
      copy.book_knows = pick(4) != 0;  // a driver without cuGraphNodeFindInClone says nothing
      matches.emplace_back(node, copy.book_knows ? copy.handle : nullptr);
    }
    graph_cloned(original->first, clone, matches);
    graphs_[clone] = std::move(copied);
  }
  void nest() {
    auto parent = any(graphs_);
    auto child = any(graphs_);
    if (parent == graphs_.end() || parent == child) return;
    // The driver copies the child: its nodes get handles the application may reach, the book never does.
    for (const ModelNode& node : child->second) parent->second.push_back({fresh<CUgraphNode>(), node.record, false});
    child_graph_added(parent->first, child->first);
  }
  void instantiate() {
    auto graph = any(graphs_);
    if (graph == graphs_.end()) return;
    const auto exec = fresh<CUgraphExec>();
    execs_[exec] = ModelExec{graph->first, graph->second};
    graph_instantiated(graph->first, exec);
  }
  void set_exec_node() {
    auto exec = any(execs_);
    if (exec == execs_.end() || exec->second.nodes.empty()) return;
    ModelNode& node = exec->second.nodes[static_cast<std::size_t>(pick(static_cast<int>(exec->second.nodes.size())))];
    if (!node.book_knows) exec->second.followed = false;
    node.record = fresh_record();
    exec_node_replaced(exec->first, node.handle, node.record);
  }
  // Succeeds, as the driver's does, for a graph of as many nodes; the pairing is by position here.
  void update() {
    auto exec = any(execs_);
    auto graph = any(graphs_);
    if (exec == execs_.end() || graph == graphs_.end() || graph->second.size() != exec->second.nodes.size()) return;
    ModelExec& model = exec->second;
    for (std::size_t i = 0; i < graph->second.size(); ++i) {
      model.nodes[i].record = graph->second[i].record;
      // The book names the exec's nodes again only when the update came from the origin itself.
      model.nodes[i].book_knows = graph->first == model.origin && graph->second[i].book_knows;
    }
    model.followed = true;
    exec_updated(exec->first, graph->first);
  }
  // cuGraphDestroyNode: later instantiations lose the node, executable graphs made before keep it. The
  // wrapper reads the record of a node the book does not know before it goes.
  void destroy_node() {
    auto graph = any(graphs_);
    if (graph == graphs_.end() || graph->second.empty()) return;
    const auto at = static_cast<std::size_t>(pick(static_cast<int>(graph->second.size())));
    const ModelNode node = graph->second[at];
    graph->second.erase(graph->second.begin() + static_cast<std::ptrdiff_t>(at));
    ASSERT_EQ(graph_node_known(node.handle), node.book_knows);
    if (!node.book_knows) unannounced_.insert(node.record);
    graph_node_destroyed(node.handle, node.book_knows ? nullptr : node.record);
  }
  void destroy() {
    if (pick(2) == 0) {
      auto graph = any(graphs_);
      if (graph == graphs_.end()) return;
      graph_destroyed(graph->first);
      graphs_.erase(graph);
    } else {
      auto exec = any(execs_);
      if (exec == execs_.end()) return;
      exec_destroyed(exec->first);
      execs_.erase(exec);
    }
  }

  std::mt19937 random_;
  std::map<CUgraph, std::vector<ModelNode>> graphs_;
  std::map<CUgraphExec, ModelExec> execs_;
  std::set<HostFunctionRecord*> unannounced_;
};

TEST(GraphHostNodes, RandomSequencesAnnounceNoRunTheDriverDoesNotMake) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    RandomGraphs graphs(seed);
    for (int step = 0; step < 80; ++step) {
      graphs.step();
      graphs.check();
      if (testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "seed " << seed << ", step " << step;
        return;
      }
    }
  }
}

}  // namespace
}  // namespace gilsan::cudashim
