// A graph's structure as the driver reports it: nodes, roots, edges, node types, edges added and removed,
// a capture's dependency set. Documented behaviour, so these run on the real driver too
// (gilsan_sim_tests --driver real).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>
#include <vector>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/graph_queries.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

TEST(GraphStructure, NodesRootsAndEdgesOfADiamond) {
  PrimaryContext context;
  Diamond g;
  std::vector<CUgraphNode> nodes = nodes_of(g.graph);
  EXPECT_EQ((std::set<CUgraphNode>{g.a, g.b, g.c, g.last}), std::set<CUgraphNode>(nodes.begin(), nodes.end()));
  EXPECT_EQ(std::vector<CUgraphNode>{g.a}, nodes_of(g.graph, true));
  EXPECT_EQ((std::set<std::pair<CUgraphNode, CUgraphNode>>{{g.a, g.b}, {g.a, g.c}, {g.b, g.last}, {g.c, g.last}}),
            edges_of(g.graph));
  EXPECT_EQ((std::set<CUgraphNode>{g.b, g.c}), neighbours(g.a, true));
  EXPECT_EQ((std::set<CUgraphNode>{g.b, g.c}), neighbours(g.last, false));
  EXPECT_TRUE(neighbours(g.a, false).empty());
  EXPECT_TRUE(neighbours(g.last, true).empty());
}

TEST(GraphStructure, AnArrayLongerThanTheAnswerIsPaddedWithNullAndAShorterOneCut) {
  PrimaryContext context;
  Diamond g;
  const DriverTable& d = driver();
  std::vector<CUgraphNode> nodes(6, g.a);
  size_t count = nodes.size();
  ASSERT_CU(d.cuGraphGetNodes(g.graph, nodes.data(), &count));
  EXPECT_EQ(4u, count);
  EXPECT_EQ(nullptr, nodes[4]);
  EXPECT_EQ(nullptr, nodes[5]);
  CUgraphNode one[1] = {nullptr};
  count = 1;
  ASSERT_CU(d.cuGraphGetNodes(g.graph, one, &count));
  EXPECT_EQ(1u, count);
  EXPECT_NE(nullptr, one[0]);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphGetNodes(g.graph, nullptr, nullptr));
}

TEST(GraphStructure, DestroyingANodeTakesItsEdgesWithIt) {
  PrimaryContext context;
  Diamond g;
  ASSERT_CU(driver().cuGraphDestroyNode(g.b));
  EXPECT_EQ(3u, nodes_of(g.graph).size());
  EXPECT_EQ((std::set<std::pair<CUgraphNode, CUgraphNode>>{{g.a, g.c}, {g.c, g.last}}), edges_of(g.graph));
  EXPECT_EQ(std::set<CUgraphNode>{g.c}, neighbours(g.last, false));
  EXPECT_EQ(std::set<CUgraphNode>{g.c}, neighbours(g.a, true));
}

TEST(GraphStructure, EdgesAddedAndRemovedAfterTheNodes) {
  PrimaryContext context;
  Diamond g;
  const DriverTable& d = driver();
  // An edge from a later node to an earlier one: the earlier one now waits.
  ASSERT_CU(d.cuGraphAddDependencies(g.graph, &g.last, &g.a, nullptr, 1));
  EXPECT_EQ(std::set<CUgraphNode>{g.last}, neighbours(g.a, false));
  EXPECT_TRUE(nodes_of(g.graph, true).empty());
  ASSERT_CU(d.cuGraphRemoveDependencies(g.graph, &g.last, &g.a, nullptr, 1));
  EXPECT_EQ(std::vector<CUgraphNode>{g.a}, nodes_of(g.graph, true));
  // Refused: an edge that is there already, a self edge, removing one that is not there, another
  // graph's node.
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddDependencies(g.graph, &g.a, &g.b, nullptr, 1));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddDependencies(g.graph, &g.a, &g.a, nullptr, 1));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphRemoveDependencies(g.graph, &g.a, &g.last, nullptr, 1));
  Diamond other;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddDependencies(g.graph, &g.a, &other.a, nullptr, 1));
  EXPECT_EQ(4u, edges_of(g.graph).size());
}

TEST(GraphStructure, AnEdgeAddedBackwardsDecidesTheOrderOfALaunch) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  int values[] = {1, 2};
  CUgraphNode first = nullptr, second = nullptr;
  CUDA_HOST_NODE_PARAMS one{&record_one, &values[0]}, two{&record_one, &values[1]};
  ASSERT_CU(d.cuGraphAddHostNode(&first, graph, nullptr, 0, &one));
  ASSERT_CU(d.cuGraphAddHostNode(&second, graph, nullptr, 0, &two));
  ASSERT_CU(d.cuGraphAddDependencies(graph, &second, &first, nullptr, 1));  // 2 before 1
  std::vector<int> order;
  g_order = &order;
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ((std::vector<int>{2, 1}), order);
  g_order = nullptr;
  // A cycle cannot be instantiated.
  ASSERT_CU(d.cuGraphAddDependencies(graph, &first, &second, nullptr, 1));
  CUgraphExec cyclic = nullptr;
  // The driver's answer, measured on an H100 (driver 580.159.04, 2026-12-07).
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphInstantiateWithFlags(&cyclic, graph, 0));
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(GraphStructure, TheGenericFormAddsEachKindAndWritesItsOutputs) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  std::atomic<int> runs{0};
  CUgraphNodeParams host{};
  host.type = CU_GRAPH_NODE_TYPE_HOST;
  host.host.fn = &count_run;
  host.host.userData = &runs;
  CUgraphNode host_node = nullptr, allocation = nullptr, release = nullptr;
  ASSERT_CU(d.cuGraphAddNode(&host_node, graph, nullptr, nullptr, 0, &host));
  CUgraphNodeParams alloc{};
  alloc.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  alloc.alloc.poolProps = pinned_device_pool_properties(0);
  alloc.alloc.bytesize = 4096;
  ASSERT_CU(d.cuGraphAddNode(&allocation, graph, &host_node, nullptr, 1, &alloc));
  EXPECT_NE(0u, alloc.alloc.dptr);
  CUgraphNodeParams release_params{};
  release_params.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  release_params.free.dptr = alloc.alloc.dptr;
  ASSERT_CU(d.cuGraphAddNode(&release, graph, &allocation, nullptr, 1, &release_params));
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  EXPECT_CU(d.cuGraphNodeGetType(release, &type));
  EXPECT_EQ(CU_GRAPH_NODE_TYPE_MEM_FREE, type);
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(1, runs.load());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(GraphStructure, AHostNodeReadsBackItsFunctionAndArgument) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  int value = 0;
  CUDA_HOST_NODE_PARAMS params{&record_one, &value}, read{};
  CUgraphNode node = nullptr, empty = nullptr;
  ASSERT_CU(d.cuGraphAddHostNode(&node, graph, nullptr, 0, &params));
  ASSERT_CU(d.cuGraphHostNodeGetParams(node, &read));
  EXPECT_EQ(&record_one, read.fn);
  EXPECT_EQ(&value, read.userData);
  ASSERT_CU(d.cuGraphAddEmptyNode(&empty, graph, nullptr, 0));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphHostNodeGetParams(empty, &read));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

// What cuda.core's GraphBuilder does for a conditional node's body: capture into a graph that exists.
TEST(Capture, IntoAGraphThatExistsAfterTheNodesGiven) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode first = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&first, graph, nullptr, 0));
  ASSERT_CU(d.cuStreamBeginCaptureToGraph(stream.get(), graph, &first, nullptr, 1, CU_STREAM_CAPTURE_MODE_RELAXED));
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &do_nothing, nullptr));
  CUgraph ended = nullptr;
  ASSERT_CU(d.cuStreamEndCapture(stream.get(), &ended));
  EXPECT_EQ(graph, ended);
  std::vector<CUgraphNode> nodes = nodes_of(graph);
  ASSERT_EQ(2u, nodes.size());
  const CUgraphNode captured = nodes[0] == first ? nodes[1] : nodes[0];
  EXPECT_EQ(std::set<CUgraphNode>{first}, neighbours(captured, false));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

// What cuda.core's GraphBuilder does for a branch: the capture's next node follows a set of its own choosing.
TEST(Capture, TheDependencySetCanBeReplacedOrGrown) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(d.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &do_nothing, nullptr));
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph graph = nullptr;
  const CUgraphNode* frontier = nullptr;
  size_t size = 0;
  ASSERT_CU(d.cuStreamGetCaptureInfo(stream.get(), &status, nullptr, &graph, &frontier, nullptr, &size));
  ASSERT_EQ(1u, size);
  CUgraphNode first = frontier[0];
  ASSERT_CU(d.cuStreamUpdateCaptureDependencies(stream.get(), nullptr, nullptr, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &do_nothing, nullptr));  // a second root
  ASSERT_CU(d.cuStreamGetCaptureInfo(stream.get(), &status, nullptr, &graph, &frontier, nullptr, &size));
  ASSERT_EQ(1u, size);
  CUgraphNode second = frontier[0];
  ASSERT_CU(d.cuStreamUpdateCaptureDependencies(stream.get(), &first, nullptr, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &do_nothing, nullptr));  // joins both
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE,
                   d.cuStreamUpdateCaptureDependencies(stream.get(), nullptr, nullptr, 0, 7));
  CUgraph captured = nullptr;
  ASSERT_CU(d.cuStreamEndCapture(stream.get(), &captured));
  EXPECT_EQ(2u, nodes_of(captured, true).size());
  std::vector<CUgraphNode> nodes = nodes_of(captured);
  ASSERT_EQ(3u, nodes.size());
  CUgraphNode join = nullptr;
  for (CUgraphNode node : nodes)
    if (node != first && node != second) join = node;
  EXPECT_EQ((std::set<CUgraphNode>{first, second}), neighbours(join, false));
  EXPECT_CU_RESULT(CUDA_ERROR_ILLEGAL_STATE, d.cuStreamUpdateCaptureDependencies(stream.get(), nullptr, nullptr, 0,
                                                                                 CU_STREAM_SET_CAPTURE_DEPENDENCIES));
  EXPECT_CU(d.cuGraphDestroy(captured));
}

TEST(GraphStructure, EachNodeSaysItsType) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode empty = nullptr, host = nullptr, allocation = nullptr, memset = nullptr, release = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&empty, graph, nullptr, 0));
  CUDA_HOST_NODE_PARAMS host_params{&count_run, nullptr};
  ASSERT_CU(d.cuGraphAddHostNode(&host, graph, nullptr, 0, &host_params));
  CUDA_MEM_ALLOC_NODE_PARAMS params = device_allocation(4096);
  ASSERT_CU(d.cuGraphAddMemAllocNode(&allocation, graph, nullptr, 0, &params));
  CUDA_MEMSET_NODE_PARAMS fill{};
  fill.dst = params.dptr;
  fill.elementSize = 1;
  fill.width = 4096;
  fill.height = 1;
  ASSERT_CU(d.cuGraphAddMemsetNode(&memset, graph, &allocation, 1, &fill, context.get()));
  ASSERT_CU(d.cuGraphAddMemFreeNode(&release, graph, &memset, 1, params.dptr));
  const std::pair<CUgraphNode, CUgraphNodeType> expected[] = {
      {empty, CU_GRAPH_NODE_TYPE_EMPTY},   {host, CU_GRAPH_NODE_TYPE_HOST},
      {allocation, CU_GRAPH_NODE_TYPE_MEM_ALLOC}, {memset, CU_GRAPH_NODE_TYPE_MEMSET},
      {release, CU_GRAPH_NODE_TYPE_MEM_FREE}};
  for (const auto& [node, type] : expected) {
    CUgraphNodeType got = CU_GRAPH_NODE_TYPE_GRAPH;
    EXPECT_CU(d.cuGraphNodeGetType(node, &got));
    EXPECT_EQ(type, got);
  }
  EXPECT_CU(d.cuGraphDestroy(graph));
}

}  // namespace
}  // namespace gilsan::test
