// Graphs (nodes with dependencies) and executable graphs (a fixed order of the same work).
//
// A graph launch is one operation of the launch stream: it runs the nodes in dependency order, host
// nodes on the context's callback thread like host functions. Launches of one executable graph are
// serialized with each other, as on the GPU.
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>
#include <vector>

#include "harness/simcuda/sim_stream.h"
#include "harness/simcuda/sim_user_object.h"
#include "harness/simcuda/sim_work.h"

namespace gilsan::sim {

// MemAlloc and MemFree nodes run as no work: the block of an allocation node is reserved when the node is
// added (its address is fixed then, as the driver's is) and stays until cuMemFree / cuMemFreeAsync or its
// context goes; a free node marks where the graph gives it back, which the sim does not model.
// An EventRecord node records its event when the graph is launched, at the launch's place in its stream
// (so the event completes with the whole launch), and an EventWait node makes the whole launch wait for
// its event's last record before it: a launch is one operation of its stream in the sim.
// A ChildGraph node holds a copy of the graph it was given (its own graph, reachable through
// cuGraphChildGraphNodeGetGraph), whose work runs in its place at each launch.
// A Conditional node holds its body graphs (built like any graph); which body runs is decided by device
// code, which the sim never runs, so a graph with one is built and read but not instantiated.
enum class NodeKind {
  Empty, Host, Kernel, Memcpy, Memset, MemAlloc, MemFree, EventRecord, EventWait, ChildGraph, Conditional
};

// Guarded by SimDriver::mutex.
struct SimGraphNode {
  struct SimGraph* graph = nullptr;
  NodeKind kind = NodeKind::Empty;
  WorkItem work;
  std::vector<SimGraphNode*> after;
  CUdeviceptr allocation = 0;  // MemAlloc: the block it reserved; MemFree: the block it frees
  CUDA_MEM_ALLOC_NODE_PARAMS allocation_params{};  // MemAlloc: as added (no access descriptors kept)
  std::shared_ptr<SimEvent> event;                 // EventRecord, EventWait
  std::shared_ptr<struct SimGraph> child;          // ChildGraph
  std::vector<std::shared_ptr<struct SimGraph>> bodies;  // Conditional
  std::vector<CUgraph> body_handles;                      // Conditional: the array the application reads
  const void* copy_of = nullptr;                   // in a clone: the node it copies (compared, never read)
  CUgraphNode handle() { return reinterpret_cast<CUgraphNode>(this); }
};

struct SimGraph {
  std::vector<std::shared_ptr<SimGraphNode>> nodes;
  std::vector<CUgraphConditionalHandle> conditions;  // cuGraphConditionalHandleCreate's for this graph
  UserObjectReferences user_objects;
  CUgraph handle() { return reinterpret_cast<CUgraph>(this); }
};

struct SimGraphExec {
  std::shared_ptr<SimContext> context;
  std::vector<WorkItem> steps;  // the graph's work in a dependency order
  std::optional<Dependency> last_launch;
  std::vector<std::shared_ptr<SimEvent>> records;  // recorded at each launch, after it
  std::vector<std::shared_ptr<SimEvent>> waits;    // each launch waits for their last records
  UserObjectReferences user_objects;  // released when the last launch holding this is done
  CUgraphExec handle() { return reinterpret_cast<CUgraphExec>(this); }
};

// Requires the lock. Adds a node after `dependencies` (handles checked to belong to `graph`).
CUresult add_node(SimGraph& graph, NodeKind kind, WorkItem work, const CUgraphNode* dependencies,
                  std::size_t dependency_count, SimGraphNode*& out);
// Requires the lock. Adds (or removes) the edges from[i] -> to[i]. Refused as a whole with
// CUDA_ERROR_INVALID_VALUE for a node of another graph, a self edge, an edge added twice or removing one
// that is not there, and with CUDA_ERROR_NOT_SUPPORTED for removing any edge of a graph with memory nodes
// (the driver forbids it; the error is the one an H100 gave).
CUresult add_edges(SimGraph& graph, const CUgraphNode* from, const CUgraphNode* to, std::size_t count);
CUresult remove_edges(SimGraph& graph, const CUgraphNode* from, const CUgraphNode* to, std::size_t count);
// Whether the graph has an allocation or free node: its nodes and edges cannot be deleted then.
bool has_memory_nodes(const SimGraph& graph);
// Requires the lock. The nodes that depend on `node`, in the order they were added.
std::vector<SimGraphNode*> dependents_of(const SimGraph& graph, const SimGraphNode& node);
// Requires the lock. Removes `node` and every edge to or from it, and forgets its handle.
void remove_node(SimGraph& graph, SimGraphNode& node);
// Whether every edge described is a default one (full completion of the node before): the only kind the
// sim models. Null data describes default edges.
bool default_edges(const CUgraphEdgeData* data, std::size_t count);
// The driver's name for a node's kind.
CUgraphNodeType node_type(NodeKind kind);
// Requires the lock. Drops the graph's nodes from the handle tables, and its child graphs with them.
void forget_graph_nodes(SimGraph& graph);
// Requires the lock. A copy of `original` with nodes of its own in the handle tables, each remembering the
// node it copies; host nodes are host functions of their own (new run keys); child graphs are copied in
// turn and user-object references added. CUDA_ERROR_NOT_SUPPORTED for a graph with memory nodes, which
// the driver does not copy. sim_graph_clone.cpp.
CUresult clone_graph(const SimGraph& original, std::shared_ptr<SimGraph>& out);
// Requires the lock.
CUresult instantiate(const SimGraph& graph, const std::shared_ptr<SimContext>& context,
                     std::shared_ptr<SimGraphExec>& out);
CUresult launch(Lock& lock, const std::shared_ptr<SimGraphExec>& exec, SimStream& stream);
// Requires the lock. An upload of an executable graph into `stream` (cuGraphUpload, or instantiation
// with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD).
CUresult upload(Lock& lock, SimStream& stream);

}  // namespace gilsan::sim
