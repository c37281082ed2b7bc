// SanitizerModel: a host function's begin and end, and the begins held back.
//
// A begin does two things. It keeps the books (lifetime and finalization findings, the runs that
// began for host-function-lost-at-exit, the stream's pending list), and it puts the host function in
// the graph: while it runs the thread holds its stream's and context's completions, the context's
// callback thread and host-function lock, and its completions wait for the callback thread (edges
// that are drawn once and stay). A thread that runs host functions one after another, each of the
// same kind on the same stream and context, with nothing running, held or called before it, gets the same
// holds and no new edge from each: its end takes them away again. So such a begin keeps the books
// and holds back the rest, which is applied before the thread's next event (a driver call, a GIL or
// lock event, a nested host function: anything that would be drawn from what it holds), and dropped
// with its end when nothing came in between. A queue of native host functions drained by the
// callback thread then costs the model the books only (docs/performance.md).
//
// Only native host functions are held back: a Python one takes the GIL as it begins, and a ctypes
// one may take it inside ctypes where no event shows it.
//
// A launcher's trampoline that reports its own begin inside the driver's record of the same run (the
// gilsan module's, joined by the userData the driver was given) is that run's twin: the driver's
// begin already holds everything the twin would hold and drew every edge the twin's holds would draw.
// So a twin keeps the books, names the run for the reports made inside it (the launcher's
// description) and takes the GIL as a Python host function's begin does, and holds nothing else.
#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {

BeginNodes SanitizerModel::begin_nodes(const HostFunction& host_function) {
  const bool takes_gil = takes_gil_at_begin(host_function, finalizing_);
  RecentBegin& recent = recent_begin_;
  if (fast_paths_ && recent.valid && recent.context == host_function.context && recent.stream == host_function.stream &&
      recent.nodes.takes_gil == takes_gil && all_alive(recent.nodes)) {
    return recent.nodes;
  }
  const BeginEffects effects(host_function, finalizing_);
  BeginNodes nodes;
  if (auto lock = effects.stream_completion()) nodes.stream = graph_.node_for(*lock);
  if (auto lock = effects.context_completion()) nodes.context = graph_.node_for(*lock);
  if (auto lock = effects.callback_thread()) nodes.callback_thread = graph_.node_for(*lock);
  if (auto lock = effects.host_function_lock()) nodes.lock = graph_.node_for(*lock);
  nodes.takes_gil = effects.takes_gil();
  if (fast_paths_) recent = RecentBegin{true, host_function.context, host_function.stream, nodes};
  return nodes;
}

bool SanitizerModel::all_alive(const BeginNodes& nodes) const {
  for (const std::optional<NodeId>& node : {nodes.stream, nodes.context, nodes.callback_thread, nodes.lock}) {
    if (node && !graph_.alive(*node)) return false;
  }
  return true;
}

bool SanitizerModel::is_twin_of_current(const ThreadState& state, const HostFunction& inner) {
  if (state.host_functions.empty() || inner.user_data == 0) return false;
  // The driver names the run by its code (the trampoline), so the two may differ in kind: only where
  // it runs and what it was given tell that it is the same run.
  const HostFunction& run = state.host_functions.back().host_function;
  return run.user_data == inner.user_data && run.context == inner.context && (!inner.stream || inner.stream == run.stream);
}

ActiveHostFunction SanitizerModel::take_spare(ThreadState& state) {
  ActiveHostFunction active;
  if (!state.spare_host_functions.empty()) {
    active = std::move(state.spare_host_functions.back());
    state.spare_host_functions.pop_back();
  }
  return active;
}

void SanitizerModel::begin_twin(ThreadId id, ThreadState& state, const HostFunction& host_function, const Stack& stack,
                                Out& out) {
  ActiveHostFunction twin = take_spare(state);
  twin.host_function = host_function;
  twin.holds.clear();
  const HeldLock* gil = state.find(gil_);
  twin.gil_depth_before = gil != nullptr ? gil->depth : 0;  // its end leaves the GIL as it found it
  state.host_functions.push_back(std::move(twin));
  if (takes_gil_at_begin(host_function, finalizing_)) take_gil(id, state, stack, out);
}

bool SanitizerModel::runs_nothing(const ThreadState& state) {
  return state.host_functions.empty() && state.held.empty() && state.calls.empty() && !state.waiting_for_gil &&
         !state.begin_held_back;
}

void SanitizerModel::host_function_begin(const HostFunctionBegin& event, Out& out) {
  ThreadState& state = acting(event.thread, out);  // a begin held back is the outer one of this
  const HostFunction& host_function = event.host_function;
  report_host_function_start(event, state, out);
  if (options_.is_enabled(Checker::host_function_lost_at_exit)) runs_.began(host_function.run_key);
  if (is_twin_of_current(state, host_function)) {
    // The launcher's pending entry is its own (by its id), which the driver's begin did not match.
    if (host_function.stream) {
      forget_pending(graph_.node_for(PseudoLock::stream_completion(host_function.context, *host_function.stream)),
                     host_function);
    }
    begin_twin(event.thread, state, host_function, event.stack, out);
    return;
  }
  const BeginNodes nodes = begin_nodes(host_function);
  if (nodes.stream) forget_pending(*nodes.stream, host_function);
  if (fast_paths_ && host_function.kind == HostFunctionKind::native && runs_nothing(state) &&
      state.last_outer_nodes == nodes &&
      state.last_outer_kind == host_function.kind) {
    state.held_back = host_function;
    state.held_back_nodes = nodes;
    state.begin_held_back = true;
    return;
  }
  apply_begin(event.thread, state, host_function, nodes, event.stack, out);
}

void SanitizerModel::apply_begin(ThreadId id, ThreadState& state, const HostFunction& host_function,
                                 const BeginNodes& nodes, const Stack& stack, Out& out) {
  const bool outer = runs_nothing(state);
  // The completions this host function is part of: nobody waits to take them (no edges into them);
  // whoever waits for them waits for this host function.
  // Built in the buffers of a host function this thread ran before (ThreadState's spares).
  ActiveHostFunction active = take_spare(state);
  active.host_function = host_function;
  std::vector<NodeId> holds = std::move(active.holds);
  holds.clear();
  if (nodes.stream) holds.push_back(*nodes.stream);
  if (nodes.context) holds.push_back(*nodes.context);
  for (NodeId node : holds) state.hold(node);
  active.gil_depth_before = state.find(gil_) ? state.find(gil_)->depth : 0;
  state.host_functions.push_back(std::move(active));

  if (nodes.callback_thread) {
    // It runs only once the context's callback thread is free: its completions wait for that.
    wait_for(id, state, holds, *nodes.callback_thread, WaitKind::callback_thread, std::nullopt, stack, out);
    state.hold(*nodes.callback_thread);
    holds.push_back(*nodes.callback_thread);
  }
  if (nodes.lock) {
    // The driver holds this while the host function runs; taking it does not wait.
    state.hold(*nodes.lock);
    holds.push_back(*nodes.lock);
  }
  state.host_functions.back().holds = std::move(holds);
  if (nodes.takes_gil) take_gil(id, state, stack, out);
  if (outer) {
    state.last_outer_nodes = nodes;
    state.last_outer_kind = host_function.kind;
  }
}

void SanitizerModel::settle(ThreadId id, ThreadState& state, Out& out) {
  if (!state.begin_held_back) return;
  state.begin_held_back = false;
  // The same nodes as a begin applied before: no edge is new, so no stack is wanted for one.
  apply_begin(id, state, state.held_back, state.held_back_nodes, Stack{}, out);
}

void SanitizerModel::settle_quietly(ThreadId id, ThreadState& state) {
  // Every edge a held-back begin draws exists already (see above), so it can find no cycle.
  Out none;
  settle(id, state, none);
}

void SanitizerModel::host_function_end(ThreadId id, Out&) {
  ThreadState& state = thread(id);
  if (state.begin_held_back) {
    // Nothing happened inside it: the graph never needed it. Its books end as any run's.
    state.begin_held_back = false;
    if (options_.is_enabled(Checker::host_function_lifetime)) lifetime_.ended(state.held_back.id);
    if (options_.is_enabled(Checker::host_function_lost_at_exit)) runs_.ended(state.held_back.run_key);
    return;
  }
  if (state.host_functions.empty()) {
    ++ignored_events_;
    return;
  }
  // Kept as a spare: its buffers serve the thread's next host function.
  ActiveHostFunction& ended = state.spare_host_functions.emplace_back(std::move(state.host_functions.back()));
  state.host_functions.pop_back();
  for (NodeId node : ended.holds) state.unhold(node);
  // Whatever GIL the host function took is given back when it returns to the driver.
  if (ended.gil_depth_before == 0) {
    state.drop(gil_);
  } else if (HeldLock* gil = state.find(gil_)) {
    gil->depth = ended.gil_depth_before;
  }
  if (options_.is_enabled(Checker::host_function_lifetime)) lifetime_.ended(ended.host_function.id);
  if (options_.is_enabled(Checker::host_function_lost_at_exit)) runs_.ended(ended.host_function.run_key);
}

}  // namespace gilsan::checkers
