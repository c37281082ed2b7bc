#include "harness/simcuda/sim_capture.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "harness/simcuda/sim_context.h"

namespace gilsan::sim {
namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// The node kind a captured operation becomes, or nullopt for work a capture cannot hold.
std::optional<NodeKind> node_kind_of(const WorkItem& work) {
  return std::visit(Overloaded{
                        [](const NoWork&) -> std::optional<NodeKind> { return NodeKind::Empty; },
                        [](const DeviceWork&) -> std::optional<NodeKind> { return NodeKind::Kernel; },
                        [](const KernelRun&) -> std::optional<NodeKind> { return NodeKind::Kernel; },
                        [](const Copy&) -> std::optional<NodeKind> { return NodeKind::Memcpy; },
                        [](const Fill&) -> std::optional<NodeKind> { return NodeKind::Memset; },
                        [](const HostCall& call) -> std::optional<NodeKind> {
                          if (call.stream_callback != nullptr) return std::nullopt;  // cuStreamAddCallback
                          return NodeKind::Host;
                        },
                        [](const EventStamp&) -> std::optional<NodeKind> { return std::nullopt; },
                        [](const GraphRun&) -> std::optional<NodeKind> { return std::nullopt; },
                        [](const PoolFree&) -> std::optional<NodeKind> { return std::nullopt; },
                    },
                    work);
}

void publish_frontier(CaptureState& capture) {
  capture.frontier_handles.clear();
  for (SimGraphNode* node : capture.frontier) capture.frontier_handles.push_back(node->handle());
  capture.edge_data.assign(capture.frontier.size(), CUgraphEdgeData{});
}

}  // namespace

CUresult begin_capture(SimStream& stream, CUstreamCaptureMode mode) {
  auto& driver = SimDriver::instance();
  if (stream.kind == StreamKind::Legacy) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (stream.capture) return CUDA_ERROR_ILLEGAL_STATE;
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  auto capture = std::make_unique<CaptureState>();
  capture->graph = std::make_shared<SimGraph>();
  capture->id = driver.next_capture_id.fetch_add(1);
  capture->mode = mode;
  capture->owner = std::this_thread::get_id();
  driver.graphs.add(capture->graph);
  stream.capture = std::move(capture);
  return CUDA_SUCCESS;
}

CUresult begin_capture_to_graph(SimStream& stream, CUstreamCaptureMode mode, const std::shared_ptr<SimGraph>& graph,
                                const CUgraphNode* dependencies, std::size_t count) {
  if (count > 0 && dependencies == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<SimGraphNode*> frontier;
  for (std::size_t i = 0; i < count; ++i) {
    auto node = SimDriver::instance().graph_nodes.find(dependencies[i]);
    if (!node || node->graph != graph.get()) return CUDA_ERROR_INVALID_VALUE;
    frontier.push_back(node.get());
  }
  if (CUresult rc = begin_capture(stream, mode); rc != CUDA_SUCCESS) return rc;
  CaptureState& capture = *stream.capture;
  SimDriver::instance().graphs.remove(capture.graph.get());  // the fresh graph begin_capture made
  capture.graph = graph;
  capture.into_existing_graph = true;
  capture.frontier = std::move(frontier);
  publish_frontier(capture);
  return CUDA_SUCCESS;
}

CUresult end_capture(SimStream& stream, std::shared_ptr<SimGraph>& out) {
  out.reset();
  if (!stream.capture) return CUDA_ERROR_ILLEGAL_STATE;
  if (stream.capture->mode != CU_STREAM_CAPTURE_MODE_RELAXED && stream.capture->owner != std::this_thread::get_id())
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  std::unique_ptr<CaptureState> capture = std::move(stream.capture);
  if (capture->invalidated) {
    if (!capture->into_existing_graph) {
      forget_graph_nodes(*capture->graph);
      SimDriver::instance().graphs.remove(capture->graph.get());
    }
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  out = capture->graph;
  return CUDA_SUCCESS;
}

CUresult capture_work(SimStream& stream, WorkItem work) {
  CaptureState& capture = *stream.capture;
  if (capture.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  std::optional<NodeKind> kind = node_kind_of(work);
  if (!kind) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::vector<CUgraphNode> after;
  for (SimGraphNode* node : capture.frontier) after.push_back(node->handle());
  SimGraphNode* node = nullptr;
  if (CUresult rc = add_node(*capture.graph, *kind, std::move(work), after.data(), after.size(), node);
      rc != CUDA_SUCCESS)
    return rc;
  capture.frontier = {node};
  publish_frontier(capture);
  return CUDA_SUCCESS;
}

CUresult capture_node(SimStream& stream, const std::function<CUresult(const NodePlace&)>& add) {
  CaptureState& capture = *stream.capture;
  if (capture.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  std::vector<CUgraphNode> after;
  for (SimGraphNode* node : capture.frontier) after.push_back(node->handle());
  CUgraphNode added = nullptr;
  if (CUresult rc = add(NodePlace{&added, capture.graph->handle(), after.data(), after.size()}); rc != CUDA_SUCCESS)
    return rc;
  capture.frontier = {SimDriver::instance().graph_nodes.find(added).get()};
  publish_frontier(capture);
  return CUDA_SUCCESS;
}

CUresult update_capture_frontier(SimStream& stream, const CUgraphNode* nodes, std::size_t count, bool replace) {
  CaptureState& capture = *stream.capture;
  if (capture.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (count > 0 && nodes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<SimGraphNode*> frontier = replace ? std::vector<SimGraphNode*>{} : capture.frontier;
  for (std::size_t i = 0; i < count; ++i) {
    auto node = SimDriver::instance().graph_nodes.find(nodes[i]);
    if (!node || node->graph != capture.graph.get()) return CUDA_ERROR_INVALID_VALUE;
    if (std::find(frontier.begin(), frontier.end(), node.get()) == frontier.end()) frontier.push_back(node.get());
  }
  capture.frontier = std::move(frontier);
  publish_frontier(capture);
  return CUDA_SUCCESS;
}

void invalidate_capture(SimStream& stream) {
  if (stream.capture) stream.capture->invalidated = true;
}

bool context_has_blocking_capture(const SimContext& context) {
  for (const auto& [key, stream] : context.streams)
    if (stream->capture && stream->blocking()) return true;
  return false;
}

}  // namespace gilsan::sim
