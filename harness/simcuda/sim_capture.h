// Stream capture: while a stream captures, its work becomes nodes of a graph instead of running.
//
// Each captured operation depends on the nodes captured just before it on the stream, so a capture is
// a chain. Capture across streams (joining another stream through an event) is not modelled and is
// refused with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_graph_nodes.h"

namespace gilsan::sim {

// Guarded by SimDriver::mutex.
struct CaptureState {
  std::shared_ptr<SimGraph> graph;
  std::uint64_t id = 0;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id owner;
  bool invalidated = false;
  std::vector<SimGraphNode*> frontier;  // what the next captured node depends on
  bool into_existing_graph = false;     // cuStreamBeginCaptureToGraph: the graph is the application's
  // Stable arrays for cuStreamGetCaptureInfo, valid until the next capture operation.
  std::vector<CUgraphNode> frontier_handles;
  std::vector<CUgraphEdgeData> edge_data;
};

// All require the lock.
CUresult begin_capture(SimStream& stream, CUstreamCaptureMode mode);
// cuStreamBeginCaptureToGraph: the captured nodes are added to `graph` after `dependencies` (its nodes).
CUresult begin_capture_to_graph(SimStream& stream, CUstreamCaptureMode mode, const std::shared_ptr<SimGraph>& graph,
                                const CUgraphNode* dependencies, std::size_t count);
CUresult end_capture(SimStream& stream, std::shared_ptr<SimGraph>& out);
// Adds work as a node of the stream's capture graph.
CUresult capture_work(SimStream& stream, WorkItem work);
// Adds the node `add` makes at the place of the stream's next captured operation.
CUresult capture_node(SimStream& stream, const std::function<CUresult(const NodePlace&)>& add);
// cuStreamUpdateCaptureDependencies: the next captured node follows `nodes` of the capture's graph, as well
// as the current set (replace = false) or instead of it.
CUresult update_capture_frontier(SimStream& stream, const CUgraphNode* nodes, std::size_t count, bool replace);
// Ends a capture with an error that makes cuStreamEndCapture fail.
void invalidate_capture(SimStream& stream);
// Any stream of the context capturing (legacy stream use is then an error)?
bool context_has_blocking_capture(const SimContext& context);

}  // namespace gilsan::sim
