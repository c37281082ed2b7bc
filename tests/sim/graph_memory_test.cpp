// Graph memory: allocation and free nodes, added or captured, and the driver's rules for graphs holding them.
// Documented behaviour, so these run on the real driver too (gilsan_sim_tests --driver real).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/graph_queries.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

TEST(GraphMemory, AGraphWithMemoryNodesKeepsItsNodesAndEdges) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUgraphNode allocation = nullptr, after = nullptr, release = nullptr;
  CUDA_MEM_ALLOC_NODE_PARAMS params = device_allocation(4096);
  ASSERT_CU(d.cuGraphAddMemAllocNode(&allocation, graph, nullptr, 0, &params));
  ASSERT_CU(d.cuGraphAddEmptyNode(&after, graph, &allocation, 1));
  // The driver's answer, measured on an H100 (driver 580.159.04, 2026-12-07).
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED, d.cuGraphDestroyNode(after));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED, d.cuGraphRemoveDependencies(graph, &allocation, &after, nullptr, 1));
  EXPECT_EQ(2u, nodes_of(graph).size());
  ASSERT_CU(d.cuGraphAddMemFreeNode(&release, graph, &after, 1, params.dptr));
  CUgraphNode twice = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphAddMemFreeNode(&twice, graph, &release, 1, params.dptr));
  EXPECT_CU(d.cuGraphDestroy(graph));
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
