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

enum class NodeKind { Empty, Host, Kernel, Memcpy, Memset };

// Guarded by SimDriver::mutex.
struct SimGraphNode {
  struct SimGraph* graph = nullptr;
  NodeKind kind = NodeKind::Empty;
  WorkItem work;
  std::vector<SimGraphNode*> after;
  CUgraphNode handle() { return reinterpret_cast<CUgraphNode>(this); }
};

struct SimGraph {
  std::vector<std::shared_ptr<SimGraphNode>> nodes;
  UserObjectReferences user_objects;
  CUgraph handle() { return reinterpret_cast<CUgraph>(this); }
};

struct SimGraphExec {
  std::shared_ptr<SimContext> context;
  std::vector<WorkItem> steps;  // the graph's work in a dependency order
  std::optional<Dependency> last_launch;
  UserObjectReferences user_objects;  // released when the last launch holding this is done
  CUgraphExec handle() { return reinterpret_cast<CUgraphExec>(this); }
};

// Requires the lock. Adds a node after `dependencies` (handles checked to belong to `graph`).
CUresult add_node(SimGraph& graph, NodeKind kind, WorkItem work, const CUgraphNode* dependencies,
                  std::size_t dependency_count, SimGraphNode*& out);
// Requires the lock. Drops the graph's nodes from the handle tables.
void forget_graph_nodes(SimGraph& graph);
// Requires the lock.
CUresult instantiate(const SimGraph& graph, const std::shared_ptr<SimContext>& context,
                     std::shared_ptr<SimGraphExec>& out);
CUresult launch(Lock& lock, const std::shared_ptr<SimGraphExec>& exec, SimStream& stream);
// Requires the lock. An upload of an executable graph into `stream` (cuGraphUpload, or instantiation
// with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD).
CUresult upload(Lock& lock, SimStream& stream);

}  // namespace gilsan::sim
