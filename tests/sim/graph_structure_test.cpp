// A graph's structure as the driver reports it, and graph memory nodes: documented behaviour, so these
// run on the real driver too (gilsan_sim_tests --driver real).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

std::vector<CUgraphNode> nodes_of(CUgraph graph, bool roots_only = false) {
  const DriverTable& d = driver();
  size_t count = 0;
  EXPECT_CU(roots_only ? d.cuGraphGetRootNodes(graph, nullptr, &count) : d.cuGraphGetNodes(graph, nullptr, &count));
  std::vector<CUgraphNode> nodes(count);
  if (count > 0) {
    EXPECT_CU(roots_only ? d.cuGraphGetRootNodes(graph, nodes.data(), &count)
                         : d.cuGraphGetNodes(graph, nodes.data(), &count));
  }
  return nodes;
}

std::set<std::pair<CUgraphNode, CUgraphNode>> edges_of(CUgraph graph) {
  const DriverTable& d = driver();
  size_t count = 0;
  EXPECT_CU(d.cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  std::vector<CUgraphNode> from(count), to(count);
  std::vector<CUgraphEdgeData> data(count);
  if (count > 0) {
    EXPECT_CU(d.cuGraphGetEdges(graph, from.data(), to.data(), data.data(), &count));
  }
  std::set<std::pair<CUgraphNode, CUgraphNode>> edges;
  for (size_t i = 0; i < count; ++i) {
    edges.emplace(from[i], to[i]);
    EXPECT_EQ(0, data[i].type) << "an edge added without data is the default edge";
  }
  return edges;
}

std::set<CUgraphNode> neighbours(CUgraphNode node, bool dependents) {
  const DriverTable& d = driver();
  size_t count = 0;
  EXPECT_CU(dependents ? d.cuGraphNodeGetDependentNodes(node, nullptr, nullptr, &count)
                       : d.cuGraphNodeGetDependencies(node, nullptr, nullptr, &count));
  std::vector<CUgraphNode> nodes(count);
  if (count > 0) {
    EXPECT_CU(dependents ? d.cuGraphNodeGetDependentNodes(node, nodes.data(), nullptr, &count)
                         : d.cuGraphNodeGetDependencies(node, nodes.data(), nullptr, &count));
  }
  return {nodes.begin(), nodes.end()};
}

CUDA_MEM_ALLOC_NODE_PARAMS device_allocation(size_t bytes) { return graph_allocation_params(0, bytes); }

// a -> {b, c} -> d, of empty nodes.
struct Diamond {
  Diamond() {
    const DriverTable& d = driver();
    EXPECT_CU(d.cuGraphCreate(&graph, 0));
    EXPECT_CU(d.cuGraphAddEmptyNode(&a, graph, nullptr, 0));
    EXPECT_CU(d.cuGraphAddEmptyNode(&b, graph, &a, 1));
    EXPECT_CU(d.cuGraphAddEmptyNode(&c, graph, &a, 1));
    const CUgraphNode both[] = {b, c};
    EXPECT_CU(d.cuGraphAddEmptyNode(&last, graph, both, 2));
  }
  ~Diamond() { EXPECT_CU(driver().cuGraphDestroy(graph)); }
  CUgraph graph = nullptr;
  CUgraphNode a = nullptr, b = nullptr, c = nullptr, last = nullptr;
};

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

std::vector<int>* g_order = nullptr;
void record_one(void* value) { g_order->push_back(*static_cast<int*>(value)); }

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
  const CUresult rc = d.cuGraphInstantiateWithFlags(&cyclic, graph, 0);
  EXPECT_NE(CUDA_SUCCESS, rc) << "instantiating a cycle";
  std::printf("instantiating a graph with a cycle: %s\n", result_name(rc).c_str());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(GraphMemory, AGraphWithMemoryNodesKeepsItsNodesAndEdges) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode allocation = nullptr, after = nullptr, release = nullptr;
  CUDA_MEM_ALLOC_NODE_PARAMS params = device_allocation(4096);
  ASSERT_CU(d.cuGraphAddMemAllocNode(&allocation, graph, nullptr, 0, &params));
  ASSERT_CU(d.cuGraphAddEmptyNode(&after, graph, &allocation, 1));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphDestroyNode(after));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphRemoveDependencies(graph, &allocation, &after, nullptr, 1));
  EXPECT_EQ(2u, nodes_of(graph).size());
  ASSERT_CU(d.cuGraphAddMemFreeNode(&release, graph, &after, 1, params.dptr));
  CUgraphNode twice = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddMemFreeNode(&twice, graph, &release, 1, params.dptr));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(GraphEvents, ARecordNodeCompletesItsEventWithTheLaunch) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUevent event = nullptr;
  ASSERT_CU(d.cuEventCreate(&event, 0));
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode record = nullptr;
  ASSERT_CU(d.cuGraphAddEventRecordNode(&record, graph, nullptr, 0, event));
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  Gate gate;
  ASSERT_CU(gate.launch(stream.get()));
  ASSERT_CU(d.cuGraphLaunch(exec, stream.get()));
  ASSERT_TRUE(gate.wait_entered());
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuEventQuery(event));
  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuEventQuery(event));
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  EXPECT_CU(d.cuGraphNodeGetType(record, &type));
  EXPECT_EQ(CU_GRAPH_NODE_TYPE_EVENT_RECORD, type);
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
  EXPECT_CU(d.cuEventDestroy(event));
}

TEST(GraphEvents, AWaitNodeHoldsBackTheNodesAfterItUntilTheEventsWork) {
  PrimaryContext context;
  Stream held;
  Stream waiting;
  const DriverTable& d = driver();
  CUdeviceptr bytes = 0;
  ASSERT_CU(d.cuMemAlloc(&bytes, 64));
  ASSERT_CU(d.cuMemsetD8(bytes, 0, 64));
  CUevent event = nullptr;
  ASSERT_CU(d.cuEventCreate(&event, 0));
  Gate gate;
  ASSERT_CU(gate.launch(held.get()));
  ASSERT_CU(d.cuEventRecord(event, held.get()));  // completes once the gate opens
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode wait = nullptr, fill = nullptr;
  ASSERT_CU(d.cuGraphAddEventWaitNode(&wait, graph, nullptr, 0, event));
  CUDA_MEMSET_NODE_PARAMS params{};
  params.dst = bytes;
  params.value = 0x5a;
  params.elementSize = 1;
  params.width = 64;
  params.height = 1;
  ASSERT_CU(d.cuGraphAddMemsetNode(&fill, graph, &wait, 1, &params, context.get()));
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  ASSERT_CU(d.cuGraphLaunch(exec, waiting.get()));
  ASSERT_TRUE(gate.wait_entered());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(waiting.get()));
  unsigned char seen[64] = {};
  ASSERT_CU(d.cuMemcpyDtoH(seen, bytes, sizeof seen));
  EXPECT_EQ(0, seen[0]) << "the memset ran before the event's work";
  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(waiting.get()));
  ASSERT_CU(d.cuMemcpyDtoH(seen, bytes, sizeof seen));
  EXPECT_EQ(0x5a, seen[63]);
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
  EXPECT_CU(d.cuEventDestroy(event));
  EXPECT_CU(d.cuMemFree(bytes));
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

TEST(ChildGraphs, ANodeHoldsACopyWhoseWorkRunsInItsPlace) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUgraph child = nullptr, parent = nullptr;
  ASSERT_CU(d.cuGraphCreate(&child, 0));
  ASSERT_CU(d.cuGraphCreate(&parent, 0));
  int values[] = {1, 2, 3};
  CUDA_HOST_NODE_PARAMS first{&record_one, &values[0]}, inner{&record_one, &values[1]}, last{&record_one, &values[2]};
  CUgraphNode before = nullptr, held = nullptr, after = nullptr, child_node = nullptr;
  ASSERT_CU(d.cuGraphAddHostNode(&held, child, nullptr, 0, &inner));
  ASSERT_CU(d.cuGraphAddHostNode(&before, parent, nullptr, 0, &first));
  ASSERT_CU(d.cuGraphAddChildGraphNode(&child_node, parent, &before, 1, child));
  ASSERT_CU(d.cuGraphAddHostNode(&after, parent, &child_node, 1, &last));
  // The node holds a copy: a node added to the original later is not in it.
  CUgraphNode late = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&late, child, nullptr, 0));
  CUgraph copy = nullptr;
  ASSERT_CU(d.cuGraphChildGraphNodeGetGraph(child_node, &copy));
  EXPECT_NE(child, copy);
  EXPECT_EQ(1u, nodes_of(copy).size());
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  EXPECT_CU(d.cuGraphNodeGetType(child_node, &type));
  EXPECT_EQ(CU_GRAPH_NODE_TYPE_GRAPH, type);
  ASSERT_CU(d.cuGraphDestroy(child));
  std::vector<int> order;
  g_order = &order;
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, parent, 0));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ((std::vector<int>{1, 2, 3}), order);
  g_order = nullptr;
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(parent));
}

TEST(ChildGraphs, ACloneIsIndependentAndFindsEachNodesCopy) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  Diamond g;
  CUgraph clone = nullptr;
  ASSERT_CU(d.cuGraphClone(&clone, g.graph));
  EXPECT_EQ(4u, nodes_of(clone).size());
  EXPECT_EQ(4u, edges_of(clone).size());
  CUgraphNode copy_of_b = nullptr;
  ASSERT_CU(d.cuGraphNodeFindInClone(&copy_of_b, g.b, clone));
  EXPECT_NE(g.b, copy_of_b);
  EXPECT_EQ(std::set<CUgraphNode>{nodes_of(clone, true)[0]}, neighbours(copy_of_b, false));
  // Changing the original changes nothing of the clone.
  CUgraphNode extra = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&extra, g.graph, &g.last, 1));
  EXPECT_EQ(4u, nodes_of(clone).size());
  CUgraphNode missing = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphNodeFindInClone(&missing, extra, clone));
  // A graph with memory nodes is not copied.
  CUgraph with_memory = nullptr;
  ASSERT_CU(d.cuGraphCreate(&with_memory, 0));
  CUgraphNode allocation = nullptr;
  CUDA_MEM_ALLOC_NODE_PARAMS params = device_allocation(4096);
  ASSERT_CU(d.cuGraphAddMemAllocNode(&allocation, with_memory, nullptr, 0, &params));
  CUgraph refused = nullptr;
  const CUresult rc = d.cuGraphClone(&refused, with_memory);
  EXPECT_NE(CUDA_SUCCESS, rc) << "cloning a graph with an allocation node";
  std::printf("cloning a graph with an allocation node: %s\n", result_name(rc).c_str());
  EXPECT_CU(d.cuGraphDestroy(with_memory));
  EXPECT_CU(d.cuGraphDestroy(clone));
}

// Stream-ordered allocation captured: graph memory, as cuda.core's GraphMemoryResource makes it.
TEST(GraphMemory, ACapturedAllocationAndFreeBecomeMemoryNodes) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(d.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAllocAsync(&block, 4096, stream.get()));
  EXPECT_NE(0u, block);
  EXPECT_CU(d.cuMemsetD8Async(block, 0x11, 4096, stream.get()));
  EXPECT_CU(d.cuMemFreeAsync(block, stream.get()));
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuStreamEndCapture(stream.get(), &graph));
  std::vector<CUgraphNodeType> types;
  for (CUgraphNode node : nodes_of(graph)) {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    EXPECT_CU(d.cuGraphNodeGetType(node, &type));
    types.push_back(type);
  }
  std::sort(types.begin(), types.end());
  std::vector<CUgraphNodeType> expected{CU_GRAPH_NODE_TYPE_MEMSET, CU_GRAPH_NODE_TYPE_MEM_ALLOC,
                                        CU_GRAPH_NODE_TYPE_MEM_FREE};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(expected, types);
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

// An allocation the graph does not free lives on after the launch, for the stream's later work, until the
// application frees it; then the graph may be launched again.
TEST(GraphMemory, AnAllocationFreedAfterTheLaunchLetsTheGraphRunAgain) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(d.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  CUdeviceptr block = 0;
  ASSERT_CU(d.cuMemAllocAsync(&block, 64, stream.get()));
  EXPECT_CU(d.cuMemsetD8Async(block, 0x22, 64, stream.get()));
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuStreamEndCapture(stream.get(), &graph));
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
    unsigned char seen[64] = {};
    EXPECT_CU(d.cuMemcpyDtoHAsync(seen, block, sizeof seen, stream.get()));
    EXPECT_CU(d.cuMemFreeAsync(block, stream.get()));
    EXPECT_CU(d.cuStreamSynchronize(stream.get()));
    EXPECT_EQ(0x22, seen[63]);
  }
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

// Conditional nodes as built (the sim does not run them: device code decides their branch).
TEST(ConditionalNodes, AnIfElseNodeHasTwoBodyGraphsToBuild) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphConditionalHandle handle = 0;
  ASSERT_CU(d.cuGraphConditionalHandleCreate(&handle, graph, context.get(), 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
  CUgraphNodeParams params{};
  params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  params.conditional.handle = handle;
  params.conditional.type = CU_GRAPH_COND_TYPE_IF;
  params.conditional.size = 2;
  params.conditional.ctx = context.get();
  CUgraphNode node = nullptr;
  ASSERT_CU(d.cuGraphAddNode(&node, graph, nullptr, nullptr, 0, &params));
  ASSERT_NE(nullptr, params.conditional.phGraph_out);
  CUgraph then_body = params.conditional.phGraph_out[0], else_body = params.conditional.phGraph_out[1];
  EXPECT_NE(then_body, else_body);
  EXPECT_TRUE(nodes_of(then_body).empty());
  CUgraphNode inside = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&inside, then_body, nullptr, 0));
  EXPECT_EQ(1u, nodes_of(then_body).size());
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  EXPECT_CU(d.cuGraphNodeGetType(node, &type));
  EXPECT_EQ(CU_GRAPH_NODE_TYPE_CONDITIONAL, type);
  // A while node has one body; two is refused.
  params.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
  params.conditional.phGraph_out = nullptr;
  CUgraphNode refused = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddNode(&refused, graph, nullptr, nullptr, 0, &params));
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

TEST(GraphMemory, AnAllocationNodeFixesItsAddressAndReadsBackItsParameters) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode allocation = nullptr, release = nullptr;
  CUDA_MEM_ALLOC_NODE_PARAMS params = device_allocation(1 << 16);
  ASSERT_CU(d.cuGraphAddMemAllocNode(&allocation, graph, nullptr, 0, &params));
  EXPECT_NE(0u, params.dptr);
  CUDA_MEM_ALLOC_NODE_PARAMS read{};
  ASSERT_CU(d.cuGraphMemAllocNodeGetParams(allocation, &read));
  EXPECT_EQ(params.dptr, read.dptr);
  EXPECT_EQ(size_t{1 << 16}, read.bytesize);
  EXPECT_EQ(CU_MEM_ALLOCATION_TYPE_PINNED, read.poolProps.allocType);
  EXPECT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, read.poolProps.location.type);
  ASSERT_CU(d.cuGraphAddMemFreeNode(&release, graph, &allocation, 1, params.dptr));
  // The graph allocates and frees at every launch; two launches in a row are fine.
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(GraphMemory, RefusesAnEmptyAllocationAndFreeingWhatNoGraphAllocated) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode node = nullptr;
  CUDA_MEM_ALLOC_NODE_PARAMS empty = device_allocation(0);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddMemAllocNode(&node, graph, nullptr, 0, &empty));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddMemFreeNode(&node, graph, nullptr, 0, 0));
  CUdeviceptr ordinary = 0;
  ASSERT_CU(d.cuMemAlloc(&ordinary, 4096));
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddMemFreeNode(&node, graph, nullptr, 0, ordinary));
  EXPECT_CU(d.cuMemFree(ordinary));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

}  // namespace
}  // namespace gilsan::test
