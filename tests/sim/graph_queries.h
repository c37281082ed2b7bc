// Reading a graph back through the driver table, for the graph tests of tests/sim (they run on both drivers).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <set>
#include <utility>
#include <vector>

namespace gilsan::test {

// The graph's nodes (or only its root nodes), as cuGraphGetNodes / cuGraphGetRootNodes list them.
std::vector<CUgraphNode> nodes_of(CUgraph graph, bool roots_only = false);
// Its edges, each checked to be a default edge.
std::set<std::pair<CUgraphNode, CUgraphNode>> edges_of(CUgraph graph);
// A node's dependents, or its dependencies.
std::set<CUgraphNode> neighbours(CUgraphNode node, bool dependents);
// `bytes` of graph memory on device 0.
CUDA_MEM_ALLOC_NODE_PARAMS device_allocation(std::size_t bytes);

// a -> {b, c} -> last, of empty nodes, in a graph of its own (destroyed with it).
struct Diamond {
  Diamond();
  ~Diamond();
  Diamond(const Diamond&) = delete;
  Diamond& operator=(const Diamond&) = delete;
  CUgraph graph = nullptr;
  CUgraphNode a = nullptr, b = nullptr, c = nullptr, last = nullptr;
};

// A host function that appends *static_cast<int*>(value) to *g_order.
extern std::vector<int>* g_order;
void CUDA_CB record_one(void* value);

}  // namespace gilsan::test
