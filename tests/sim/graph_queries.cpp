#include "tests/sim/graph_queries.h"

#include <gtest/gtest.h>

#include "harness/driver/device_memory_properties.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {

std::vector<CUgraphNode> nodes_of(CUgraph graph, bool roots_only) {
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

CUDA_MEM_ALLOC_NODE_PARAMS device_allocation(std::size_t bytes) { return graph_allocation_params(0, bytes); }

Diamond::Diamond() {
  const DriverTable& d = driver();
  EXPECT_CU(d.cuGraphCreate(&graph, 0));
  EXPECT_CU(d.cuGraphAddEmptyNode(&a, graph, nullptr, 0));
  EXPECT_CU(d.cuGraphAddEmptyNode(&b, graph, &a, 1));
  EXPECT_CU(d.cuGraphAddEmptyNode(&c, graph, &a, 1));
  const CUgraphNode both[] = {b, c};
  EXPECT_CU(d.cuGraphAddEmptyNode(&last, graph, both, 2));
}

Diamond::~Diamond() { EXPECT_CU(driver().cuGraphDestroy(graph)); }

std::vector<int>* g_order = nullptr;
void CUDA_CB record_one(void* value) { g_order->push_back(*static_cast<int*>(value)); }

}  // namespace gilsan::test
