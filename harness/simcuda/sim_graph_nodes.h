// Making each kind of graph node: its checks and its work, shared by the per-kind entry points
// (cuGraphAddHostNode, cuGraphAddMemsetNode, ...) and cuGraphAddNode.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "harness/simcuda/sim_graph.h"

namespace gilsan::sim {

// Where a new node goes: its graph, the nodes it follows, and where its handle is written.
struct NodePlace {
  CUgraphNode* out = nullptr;
  CUgraph graph = nullptr;
  const CUgraphNode* dependencies = nullptr;
  std::size_t dependency_count = 0;
};

// All require the lock.
CUresult add_empty_node(const NodePlace& place);
CUresult add_host_node(const NodePlace& place, CUhostFn fn, void* user_data);
CUresult add_kernel_node(const NodePlace& place, const CUDA_KERNEL_NODE_PARAMS& params);
CUresult add_memcpy_node(const NodePlace& place, const CUDA_MEMCPY3D& copy);
CUresult add_memset_node(const NodePlace& place, const CUDA_MEMSET_NODE_PARAMS& params);
// Writes the block's address into params.dptr.
CUresult add_mem_alloc_node(const NodePlace& place, CUDA_MEM_ALLOC_NODE_PARAMS& params);
CUresult add_mem_free_node(const NodePlace& place, CUdeviceptr block);
// kind: EventRecord or EventWait.
CUresult add_event_node(const NodePlace& place, CUevent event, NodeKind kind);
// The node holds a copy of `child` (clone_graph), itself a graph with a handle.
CUresult add_child_graph_node(const NodePlace& place, CUgraph child);
// Makes the node's empty body graphs and points params.phGraph_out at their handles (the node keeps them).
CUresult add_conditional_node(const NodePlace& place, CUDA_CONDITIONAL_NODE_PARAMS& params);
// A handle for conditional nodes of `graph`.
CUresult create_condition(CUgraph graph, CUgraphConditionalHandle& out);

}  // namespace gilsan::sim
