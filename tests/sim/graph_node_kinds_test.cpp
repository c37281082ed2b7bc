// Event record and wait nodes, child graphs and clones, conditional nodes. Documented behaviour, so these
// run on the real driver too (gilsan_sim_tests --driver real).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/graph_queries.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

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
  // The driver's answer, measured on an H100 (driver 580.159.04, 2026-12-07).
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED, d.cuGraphClone(&refused, with_memory));
  EXPECT_CU(d.cuGraphDestroy(with_memory));
  EXPECT_CU(d.cuGraphDestroy(clone));
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

}  // namespace
}  // namespace gilsan::test
