// Recipes for streams, host-function enqueues, stream capture and events.
#include "harness/probe/call_recipe.h"

namespace gilsan::probe {
namespace {

void CUDA_CB stream_callback_does_nothing(CUstream, CUresult, void*) {}

// Short device work: long enough that a wait for it is a real wait, short enough to cost nothing.
constexpr std::chrono::microseconds kShortWork{2000};

}  // namespace

void add_stream_and_event_recipes(std::vector<CallRecipe>& out) {
  using F = const ProbeFixture&;
  using S = RecipeState&;

  out.push_back({.id = "cuStreamCreate",
                 .description = "creates a non-blocking stream",
                 .call = [](F f, S s) { return f.driver.cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING); }});
  out.push_back({.id = "cuStreamCreateWithPriority",
                 .description = "creates a non-blocking stream of priority 0",
                 .call = [](F f, S s) {
                   return f.driver.cuStreamCreateWithPriority(&s.stream, CU_STREAM_NON_BLOCKING, 0);
                 }});
  out.push_back({.id = "cuStreamDestroy",
                 .description = "destroys an idle stream created in preparation",
                 .prepare = [](F f, S s) { s.stream = f.new_stream(); },
                 .call = [](F f, S s) { return f.driver.cuStreamDestroy(s.stream); }});
  out.push_back({.id = "cuStreamSynchronize",
                 .description = "synchronizes a fresh stream running 2 ms of device work",
                 .prepare = [](F f, S s) {
                   s.stream = f.new_stream();
                   f.launch_device_work(s.stream, kShortWork);
                 },
                 .call = [](F f, S s) { return f.driver.cuStreamSynchronize(s.stream); }});
  out.push_back({.id = "cuStreamSynchronize#own-stream",
                 .description = "synchronizes S1, the host function's own stream",
                 .call = [](F f, S) { return f.driver.cuStreamSynchronize(f.s1); },
                 .dependency = Dependency::OnHostFunction});
  out.push_back({.id = "cuStreamQuery",
                 .description = "queries S2, an idle stream",
                 .call = [](F f, S) { return f.driver.cuStreamQuery(f.s2); }});
  out.push_back({.id = "cuStreamQuery#own-stream",
                 .description = "queries S1, the host function's own stream (not ready while it runs)",
                 .call = [](F f, S) { return f.driver.cuStreamQuery(f.s1); }});
  out.push_back({.id = "cuStreamWaitEvent",
                 .description = "makes a fresh stream wait for an event recorded on S2",
                 .prepare = [](F f, S s) {
                   s.stream = f.new_stream();
                   s.event = f.new_recorded_event(f.s2);
                 },
                 .call = [](F f, S s) { return f.driver.cuStreamWaitEvent(s.stream, s.event, 0); }});
  out.push_back({.id = "cuStreamGetCtx",
                 .description = "asks for S2's context",
                 .call = [](F f, S s) { return f.driver.cuStreamGetCtx(f.s2, &s.context); }});
  out.push_back({.id = "cuStreamGetFlags",
                 .description = "asks for S2's flags",
                 .call = [](F f, S) {
                   unsigned flags = 0;
                   return f.driver.cuStreamGetFlags(f.s2, &flags);
                 }});
  out.push_back({.id = "cuStreamGetPriority",
                 .description = "asks for S2's priority",
                 .call = [](F f, S) {
                   int priority = 0;
                   return f.driver.cuStreamGetPriority(f.s2, &priority);
                 }});
  out.push_back({.id = "cuStreamAddCallback",
                 .description = "enqueues a stream callback on S2",
                 .call = [](F f, S) { return f.driver.cuStreamAddCallback(f.s2, stream_callback_does_nothing, nullptr, 0); }});
  out.push_back({.id = "cuLaunchHostFunc",
                 .description = "enqueues a host function on S2 (it can run only after the held one)",
                 .call = [](F f, S) { return f.driver.cuLaunchHostFunc(f.s2, do_nothing, nullptr); }});
  out.push_back({.id = "cuLaunchHostFunc#own-stream",
                 .description = "enqueues a host function on S1, behind the running one",
                 .call = [](F f, S) { return f.driver.cuLaunchHostFunc(f.s1, do_nothing, nullptr); }});

  out.push_back({.id = "cuStreamBeginCapture",
                 .description = "begins a relaxed-mode capture on a fresh stream",
                 .prepare = [](F f, S s) { s.stream = f.new_stream(); },
                 .call = [](F f, S s) {
                   return f.driver.cuStreamBeginCapture(s.stream, CU_STREAM_CAPTURE_MODE_RELAXED);
                 }});
  out.push_back({.id = "cuStreamBeginCaptureToGraph",
                 .description = "begins a relaxed-mode capture on a fresh stream into a graph of one empty node, "
                                "after that node",
                 .prepare = [](F f, S s) {
                   s.stream = f.new_stream();
                   s.graph = f.new_graph();
                   s.node = f.add_empty_node(s.graph);
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuStreamBeginCaptureToGraph(s.stream, s.graph, &s.node, nullptr, 1,
                                                              CU_STREAM_CAPTURE_MODE_RELAXED);
                 }});
  auto begin_capture_with_a_memset = [](F f, S s) {
    s.stream = f.new_stream();
    s.device_memory = f.new_device_memory(4096);
    f.check("cuStreamBeginCapture", f.driver.cuStreamBeginCapture(s.stream, CU_STREAM_CAPTURE_MODE_RELAXED));
    f.check("cuMemsetD8Async (captured)", f.driver.cuMemsetD8Async(s.device_memory, 0, 4096, s.stream));
  };
  out.push_back({.id = "cuStreamEndCapture",
                 .description = "ends a relaxed-mode capture of one memset, begun in preparation",
                 .prepare = begin_capture_with_a_memset,
                 .call = [](F f, S s) { return f.driver.cuStreamEndCapture(s.stream, &s.graph); }});
  out.push_back({.id = "cuStreamIsCapturing",
                 .description = "asks whether a capturing stream is capturing",
                 .prepare = begin_capture_with_a_memset,
                 .call = [](F f, S s) {
                   CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
                   return f.driver.cuStreamIsCapturing(s.stream, &status);
                 }});
  out.push_back({.id = "cuStreamUpdateCaptureDependencies",
                 .description = "empties the dependency set of a capturing stream (one memset captured)",
                 .prepare = begin_capture_with_a_memset,
                 .call = [](F f, S s) {
                   return f.driver.cuStreamUpdateCaptureDependencies(s.stream, nullptr, nullptr, 0,
                                                                     CU_STREAM_SET_CAPTURE_DEPENDENCIES);
                 }});
  out.push_back({.id = "cuStreamGetCaptureInfo",
                 .description = "asks for the capture status, id, graph and dependencies of a capturing stream",
                 .prepare = begin_capture_with_a_memset,
                 .call = [](F f, S s) {
                   CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
                   cuuint64_t id = 0;
                   CUgraph graph = nullptr;
                   const CUgraphNode* dependencies = nullptr;
                   const CUgraphEdgeData* edges = nullptr;
                   std::size_t count = 0;
                   return f.driver.cuStreamGetCaptureInfo(s.stream, &status, &id, &graph, &dependencies, &edges, &count);
                 }});

  out.push_back({.id = "cuEventCreate",
                 .description = "creates an event",
                 .call = [](F f, S s) { return f.driver.cuEventCreate(&s.event, CU_EVENT_DEFAULT); }});
  out.push_back({.id = "cuEventDestroy",
                 .description = "destroys an event created in preparation",
                 .prepare = [](F f, S s) { s.event = f.new_event(); },
                 .call = [](F f, S s) { return f.driver.cuEventDestroy(s.event); }});
  out.push_back({.id = "cuEventRecord",
                 .description = "records an event on S2",
                 .prepare = [](F f, S s) { s.event = f.new_event(); },
                 .call = [](F f, S s) { return f.driver.cuEventRecord(s.event, f.s2); }});
  out.push_back({.id = "cuEventRecord#own-stream",
                 .description = "records an event on S1, behind the running host function",
                 .prepare = [](F f, S s) { s.event = f.new_event(); },
                 .call = [](F f, S s) { return f.driver.cuEventRecord(s.event, f.s1); }});
  out.push_back({.id = "cuEventQuery",
                 .description = "queries an event recorded on S2 in preparation",
                 .prepare = [](F f, S s) { s.event = f.new_recorded_event(f.s2); },
                 .call = [](F f, S s) { return f.driver.cuEventQuery(s.event); }});
  out.push_back({.id = "cuEventQuery#after-host-function",
                 .description = "queries an event recorded on S1 after the host function (not ready while it runs)",
                 .after_host_function_enqueued = [](F f, S s) { s.event = f.new_recorded_event(f.s1); },
                 .call = [](F f, S s) { return f.driver.cuEventQuery(s.event); }});
  out.push_back({.id = "cuEventSynchronize",
                 .description = "synchronizes an event recorded after 2 ms of device work on a fresh stream",
                 .prepare = [](F f, S s) {
                   s.stream = f.new_stream();
                   f.launch_device_work(s.stream, kShortWork);
                   s.event = f.new_recorded_event(s.stream);
                 },
                 .call = [](F f, S s) { return f.driver.cuEventSynchronize(s.event); }});
  out.push_back({.id = "cuEventSynchronize#after-host-function",
                 .description = "synchronizes an event recorded on S1 after the host function",
                 .after_host_function_enqueued = [](F f, S s) { s.event = f.new_recorded_event(f.s1); },
                 .call = [](F f, S s) { return f.driver.cuEventSynchronize(s.event); },
                 .dependency = Dependency::OnHostFunction});
  out.push_back({.id = "cuEventElapsedTime",
                 .description = "time between two events recorded on S2 and completed in preparation",
                 .prepare = [](F f, S s) {
                   s.event = f.new_recorded_event(f.s2);
                   s.second_event = f.new_recorded_event(f.s2);
                   f.check("cuEventSynchronize", f.driver.cuEventSynchronize(s.second_event));
                 },
                 .call = [](F f, S s) {
                   float milliseconds = 0;
                   return f.driver.cuEventElapsedTime(&milliseconds, s.event, s.second_event);
                 }});
}

}  // namespace gilsan::probe
