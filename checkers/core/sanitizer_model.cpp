// The lock-order half of SanitizerModel: what each event holds, waits for and releases.
// The findings half (reports, lifetime, finish) is in sanitizer_findings.cpp.
#include "checkers/core/sanitizer_model.h"

#include <algorithm>

namespace gilsan::checkers {
namespace {

bool contains(const std::vector<NodeId>& nodes, NodeId node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

}  // namespace

SanitizerModel::SanitizerModel(const Options& options, DriverBehaviour behaviour, bool fast_paths)
    : options_(options),
      behaviour_(std::move(behaviour)),
      fast_paths_(fast_paths),
      gil_(graph_.node_for(PseudoLock::gil())) {}

void SanitizerModel::name_thread(ThreadId id, std::string name) {
  thread(id).name = std::move(name);
}

void SanitizerModel::thread_exited(ThreadId id) {
  threads_.erase(id);
  last_thread_ = nullptr;  // it may have pointed at the erased state
}

ThreadInfo SanitizerModel::snapshot(ThreadId id, const ThreadState& state) const {
  ThreadInfo info{.id = id, .name = state.name, .host_function = std::nullopt};
  if (const HostFunction* running = state.current_host_function()) info.host_function = *running;
  return info;
}

Stack SanitizerModel::kept_stack(ThreadId id, const Stack& given) const {
  if (!given.empty() || !capture_stack_) return given;
  return capture_stack_(id);
}

std::shared_ptr<const Stack> SanitizerModel::kept_enqueue_stack(ThreadId id, const Stack& given) const {
  if (given.empty() && capture_enqueue_stack_) {
    if (std::shared_ptr<const Stack> captured = capture_enqueue_stack_(id)) return captured;
  }
  return shared_stack(kept_stack(id, given));
}

const std::vector<NodeId>& SanitizerModel::held_nodes(const ThreadState& state) {
  held_nodes_.clear();
  for (const HeldLock& held : state.held) held_nodes_.push_back(held.node);
  return held_nodes_;
}

void SanitizerModel::wait_for(ThreadId id, const ThreadState& state,
                              const std::vector<NodeId>& holders, NodeId target, WaitKind wait,
                              const std::optional<CallInfo>& call, const Stack& stack, Out& out) {
  std::optional<EdgeEvidence> evidence;  // built once, and only if an edge is new
  auto record = [&](NodeId from) {
    if (graph_.find_edge(from, target)) return;
    if (!evidence) evidence = EdgeEvidence{snapshot(id, state), wait, call, kept_stack(id, stack)};
    // A node kept after its pseudo-lock went (a host function still running on a destroyed stream)
    // draws nothing: nothing can wait for it any more.
    const std::optional<EdgeId> edge = graph_.add_edge(from, target);
    if (!edge) return;
    // Edge ids are reused once their edge went: the book is as long as the graph's edges ever were.
    if (*edge >= evidence_.size()) evidence_.resize(*edge + 1);
    evidence_[*edge] = *evidence;
    report_cycle_through(*edge, from, target, out);
  };
  if (contains(holders, target)) {
    // Waiting for a completion one is part of can never end (a host function syncing its own
    // stream): a cycle of one. For the GIL, a user lock or the host-function lock, holding it means
    // re-entry, which does not wait. Edges from the other holders would only restate the same wait.
    if (graph_.lock(target).is_completion()) record(target);
    return;
  }
  for (NodeId from : holders) record(from);
}

void SanitizerModel::driver_call_enter(const DriverCallEnter& event, Out& out) {
  ThreadState& state = acting(event.thread, out);
  const CallInfo call{.entry_point = std::string(event.entry_point),
                      .context = event.context,
                      .stream = event.stream,
                      .event = event.event};
  state.calls.push_back({call, event.stack});

  const DriverCallEffects effects = driver_call_effects(event, caller_state(state), behaviour_);
  if (effects.refused) return;  // the driver answers NOT_PERMITTED at once: nothing is waited for

  std::vector<NodeId>& holders = call_holders_;
  holders = held_nodes(state);
  if (!effects.holds_gil) std::erase(holders, gil_);
  if (effects.holds_gil && !contains(holders, gil_)) holders.push_back(gil_);

  std::vector<NodeId> waited_streams;
  for (const PseudoLock& completion : effects.completions) {
    const NodeId node = graph_.node_for(completion);
    if (completion.kind == PseudoLockKind::stream_completion) waited_streams.push_back(node);
    wait_for(event.thread, state, holders, node, WaitKind::driver_wait, call, event.stack, out);
  }
  if (effects.blocked_by) {
    wait_for(event.thread, state, holders, graph_.node_for(*effects.blocked_by), WaitKind::driver_blocked, call,
             event.stack, out);
  }
  if (effects.holds_gil && (!event.waits.empty() || effects.blocked_while_host_function_runs)) {
    report_gil_held_blocking_call(event, state, waited_streams, effects.blocked_while_host_function_runs, out);
  }
}

CallerState SanitizerModel::caller_state(const ThreadState& state) {
  caller_contexts_.clear();
  for (const ActiveHostFunction& active : state.host_functions) {
    if (active.host_function.context != 0) caller_contexts_.push_back(active.host_function.context);
  }
  return CallerState{.runs_host_function = !state.host_functions.empty(),
                     .host_function_contexts = caller_contexts_,
                     .holds_gil = state.find(gil_) != nullptr};
}

void SanitizerModel::driver_call_exit(const DriverCallExit& event, Out& out) {
  ThreadState& state = acting(event.thread, out);
  auto call = std::find_if(state.calls.rbegin(), state.calls.rend(), [&](const ActiveCall& active) {
    return active.call.entry_point == event.entry_point;
  });
  if (call == state.calls.rend()) {
    ++ignored_events_;
    return;
  }
  ActiveCall done = std::move(*call);
  state.calls.erase(std::next(call).base());
  done.call.result = event.result;
  done.call.result_name = std::string(event.result_name);
  done.call.returned = true;
  if (is_sticky_error(event.result)) runs_.context_failed(done.call.context);
  if (!state.host_functions.empty()) report_host_function_call(event.thread, state, done, out);
}

void SanitizerModel::host_function_enqueued(const HostFunctionEnqueued& event, Out& out) {
  acting(event.thread, out);  // a host function that launches another is running
  if (event.host_function.run_key != 0) {
    note_driver_enqueue(event);
    return;
  }
  const HostFunction& host_function = event.host_function;
  if (host_function.stream) {
    auto& pending = pending_[graph_.node_for(
        PseudoLock::stream_completion(host_function.context, *host_function.stream))];
    if (pending.size() < kPendingShown) pending.push_back(host_function);
  }
  if (options_.is_enabled(Checker::host_function_lifetime)) lifetime_.enqueued(host_function);
  note_launcher_description(event);
}

void SanitizerModel::take_gil(ThreadId id, ThreadState& state, const Stack& stack, Out& out) {
  if (HeldLock* gil = state.find(gil_)) {
    ++gil->depth;  // re-entrant: PyGILState_Ensure on a thread that has it does not wait
    return;
  }
  wait_for(id, state, held_nodes(state), gil_, WaitKind::gil, std::nullopt, stack, out);
  state.held.push_back({gil_, 1});
}

void SanitizerModel::gil_acquire_begin(ThreadId id, const Stack& stack, Out& out) {
  ThreadState& state = acting(id, out);
  if (state.find(gil_)) return;  // re-entrant; gil_acquired counts the depth
  if (finalizing_ && !state.host_functions.empty())
    report_gil_after_finalization(id, state, stack, out);
  wait_for(id, state, held_nodes(state), gil_, WaitKind::gil, std::nullopt, stack, out);
  state.waiting_for_gil = true;
}

void SanitizerModel::gil_acquired(ThreadId id, Out& out) {
  ThreadState& state = acting(id, out);
  if (HeldLock* gil = state.find(gil_)) {
    ++gil->depth;
  } else {
    // Acquired without an acquire_begin: it still waited, so draw the edges now.
    if (!state.waiting_for_gil)
      wait_for(id, state, held_nodes(state), gil_, WaitKind::gil, std::nullopt, {}, out);
    state.held.push_back({gil_, 1});
  }
  state.waiting_for_gil = false;
}

void SanitizerModel::gil_released(ThreadId id) {
  ThreadState& state = thread(id);
  settle_quietly(id, state);
  if (!state.find(gil_)) {
    ++ignored_events_;
    return;
  }
  state.unhold(gil_);
}

bool SanitizerModel::gil_round_trip_changes_nothing(ThreadId id) {
  ThreadState& state = thread(id);
  settle_quietly(id, state);
  // Re-taking the GIL waits for it from everything else the thread holds: with nothing else held
  // there is no edge to draw, and release then acquire restore the same depth.
  return !state.held.empty() && std::all_of(state.held.begin(), state.held.end(),
                                            [this](const HeldLock& held) { return held.node == gil_; }) &&
         state.host_functions.empty() && !state.waiting_for_gil;
}

void SanitizerModel::lock_acquire(const LockAcquire& event, Out& out) {
  ThreadState& state = acting(event.thread, out);
  const LockAcquireEffects effects = lock_acquire_effects(event);
  const NodeId lock = graph_.node_for(effects.lock);
  if (HeldLock* held = state.find(lock)) {
    ++held->depth;  // an RLock, or a lock this thread already holds
    return;
  }
  if (effects.waits) {
    std::vector<NodeId> holders = held_nodes(state);
    if (!effects.waits_holding_gil) std::erase(holders, gil_);
    if (effects.holds_gil_for_certain && !contains(holders, gil_)) holders.push_back(gil_);
    wait_for(event.thread, state, holders, lock, WaitKind::user_lock, std::nullopt, event.stack, out);
  }
  state.held.push_back({lock, 1});
}

void SanitizerModel::lock_release(ThreadId id, std::uint64_t lock) {
  const PseudoLock identity = PseudoLock::user_lock(lock, "");
  auto release_from = [&](ThreadState& state) {
    for (const HeldLock& held : state.held) {
      if (graph_.alive(held.node) && graph_.lock(held.node) == identity) {
        state.unhold(held.node);
        return true;
      }
    }
    return false;
  };
  ThreadState& releasing = thread(id);
  settle_quietly(id, releasing);
  if (release_from(releasing)) return;
  // Python locks may be released by a thread other than the one that took them.
  for (auto& [other, state] : threads_) {
    if (release_from(state)) return;
  }
  ++ignored_events_;
}

void SanitizerModel::lock_destroyed(std::uint64_t lock) {
  const PseudoLock identity = PseudoLock::user_lock(lock, "");
  for (auto& [id, state] : threads_) {
    std::erase_if(state.held,
                  [&](const HeldLock& held) { return graph_.alive(held.node) && graph_.lock(held.node) == identity; });
  }
  graph_.retire(identity);
}

void SanitizerModel::stream_destroyed(Handle context, Handle stream) {
  const PseudoLock completion = PseudoLock::stream_completion(context, stream);
  if (auto node = graph_.find_node(completion)) pending_.erase(*node);
  graph_.retire(completion);
}

void SanitizerModel::context_destroyed(Handle context) {
  for (const PseudoLock& ended : ended_with_context(context)) {
    if (ended.kind == PseudoLockKind::stream_completion) {
      stream_destroyed(context, ended.stream);
    } else {
      graph_.retire(ended);
    }
  }
}

void SanitizerModel::interpreter_finalization_began() { finalizing_ = true; }

}  // namespace gilsan::checkers
