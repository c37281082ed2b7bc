// SanitizerModel: turns events into holds and waits, edges of the LockOrderGraph, and findings.
//
// This is the sanitizer without its concurrency and its outputs: not thread-safe, no suppressions,
// no sinks. Every event method appends the reports it makes to `out`; the Sanitizer (sanitizer.h)
// serializes the calls, filters the reports and delivers them. docs/sanitizer.md explains the
// model.
#pragma once

#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "checkers/core/effects.h"
#include "checkers/core/events.h"
#include "checkers/core/host_function_lifetime.h"
#include "checkers/core/host_function_runs.h"
#include "checkers/core/lock_order_graph.h"
#include "checkers/core/node_pool.h"
#include "checkers/core/options.h"
#include "checkers/core/report.h"
#include "checkers/core/thread_state.h"

namespace gilsan::checkers {

class SanitizerModel {
 public:
  using Out = std::vector<Report>;

  // `fast_paths`: SanitizerConfig::fast_paths (a repeated native host function's begin held back).
  SanitizerModel(const Options& options, DriverBehaviour behaviour, bool fast_paths = true);

  void name_thread(ThreadId thread, std::string name);
  void thread_exited(ThreadId thread);
  void driver_call_enter(const DriverCallEnter& event, Out& out);
  void driver_call_exit(const DriverCallExit& event, Out& out);
  void host_function_enqueued(const HostFunctionEnqueued& event, Out& out);
  void host_function_begin(const HostFunctionBegin& event, Out& out);
  void host_function_end(ThreadId thread, Out& out);
  // The launcher's trampoline in `thread`'s current host function did not call its callable.
  void host_function_skipped(ThreadId thread, Out& out);
  void gil_acquire_begin(ThreadId thread, const Stack& stack, Out& out);
  void gil_acquired(ThreadId thread, Out& out);
  void gil_released(ThreadId thread);
  // Whether letting the GIL go and taking it back would leave `thread` as it is and draw nothing: it
  // holds the GIL and nothing else, runs no host function and is not already waiting for the GIL
  // (Sanitizer::gil_acquire_begin then skips the round trip).
  bool gil_round_trip_changes_nothing(ThreadId thread);
  void lock_acquire(const LockAcquire& event, Out& out);
  void lock_release(ThreadId thread, std::uint64_t lock);
  void lock_destroyed(std::uint64_t lock);
  void stream_destroyed(Handle context, Handle stream);
  void context_destroyed(Handle context);
  void context_failed(Handle context) { runs_.context_failed(context); }
  void interpreter_finalization_began();
  void interpreter_finished(Out& out);
  void unraisable_in_host_function(const UnraisableInHostFunction& event, Out& out);
  void callable_released(const CallableReleased& event, Out& out);
  void graph_holds_callable(std::uint64_t graph, const HostFunction& host_function);
  void graph_destroyed(std::uint64_t graph);
  // The end of the run: calls still in flight inside host functions, callables kept too long.
  void finish(Out& out);

  // See SanitizerConfig::capture_stack and capture_enqueue_stack.
  void set_stack_capture(std::function<Stack(ThreadId)> capture,
                         std::function<std::shared_ptr<const Stack>(ThreadId)> capture_enqueue = {}) {
    capture_stack_ = std::move(capture);
    capture_enqueue_stack_ = std::move(capture_enqueue);
  }

  std::size_t ignored_events() const { return ignored_events_; }
  // Host functions enqueued that have not begun (a front end may wait for them before finish()).
  std::size_t waiting_runs() const { return runs_.waiting_runs(); }
  const LockOrderGraph& graph() const { return graph_; }
  // Tests only (sanitizer_invariants.cpp): what must hold between any two events -- the graph's own
  // invariants, each thread's books, the caches against what they cache. "" when all hold, else the
  // first that does not.
  std::string check_invariants() const;

 private:
  // The state of `id`, made on first use. The last answer is kept: a callback thread sends several
  // events in a row, and the map's nodes stay put until thread_exited erases one.
  ThreadState& thread(ThreadId id) {
    if (last_thread_ == nullptr || last_thread_id_ != id) {
      last_thread_ = &threads_[id];
      last_thread_id_ = id;
    }
    return *last_thread_;
  }
  // The state of `id` for an event of that thread: a begin it holds back is applied first
  // (sanitizer_begins.cpp).
  ThreadState& acting(ThreadId id, Out& out) {
    ThreadState& state = thread(id);
    if (state.begin_held_back) settle(id, state, out);
    return state;
  }
  // A host function's begin and end (sanitizer_begins.cpp).
  BeginNodes begin_nodes(const HostFunction& host_function);
  // Whether none of `nodes` was retired (a node id carries its slot's generation).
  bool all_alive(const BeginNodes& nodes) const;
  static bool runs_nothing(const ThreadState& state);
  // A launcher's begin inside the driver's record of the same run, which holds all it would.
  static bool is_twin_of_current(const ThreadState& state, const HostFunction& inner);
  void begin_twin(ThreadId id, ThreadState& state, const HostFunction& host_function, const Stack& stack, Out& out);
  // A host function that ended, for its buffers (ThreadState::spare_host_functions), or a new one.
  static ActiveHostFunction take_spare(ThreadState& state);
  void apply_begin(ThreadId id, ThreadState& state, const HostFunction& host_function, const BeginNodes& nodes,
                   const Stack& stack, Out& out);
  void settle(ThreadId id, ThreadState& state, Out& out);
  // For an event that reports nothing (a release): a held-back begin can find no cycle.
  void settle_quietly(ThreadId id, ThreadState& state);
  ThreadInfo snapshot(ThreadId id, const ThreadState& state) const;
  // What `state` is in the middle of, for the effects of its driver calls (effects.h); its contexts
  // are in a buffer of the model's that the next call writes over.
  CallerState caller_state(const ThreadState& state);
  // The stack to keep: the event's own, else one captured now for `id` (empty without a capture).
  Stack kept_stack(ThreadId id, const Stack& given) const;
  // The same for an enqueue's stack, shared (SanitizerConfig::capture_enqueue_stack); never null.
  std::shared_ptr<const Stack> kept_enqueue_stack(ThreadId id, const Stack& given) const;
  // `holders` wait for `target`: draws an edge from each of them (first time only) and reports the
  // cycles the new edges close.
  void wait_for(ThreadId id, const ThreadState& state, const std::vector<NodeId>& holders,
                NodeId target, WaitKind wait, const std::optional<CallInfo>& call,
                const Stack& stack, Out& out);
  void report_cycle_through(EdgeId edge, NodeId from, NodeId to, Out& out);
  Report cycle_report(const std::vector<NodeId>& cycle) const;
  // The nodes `state` holds, in acquisition order, in a buffer of the model's that the next call
  // writes over (an event allocates nothing for it): copy it to keep or change it.
  const std::vector<NodeId>& held_nodes(const ThreadState& state);
  void take_gil(ThreadId id, ThreadState& state, const Stack& stack, Out& out);
  // Appends `report` unless a report with the same key was made before.
  void emit(Report report, const std::string& key, Out& out);
  void report_host_function_call(ThreadId id, const ThreadState& state, const ActiveCall& call,
                                 Out& out);
  void report_gil_held_blocking_call(const DriverCallEnter& event, const ThreadState& state,
                                     const std::vector<NodeId>& waited_streams,
                                     bool blocked_while_host_function_runs, Out& out);
  // Lifetime and finalization findings at the start of a host function.
  void report_host_function_start(const HostFunctionBegin& event, const ThreadState& state,
                                  Out& out);
  void report_gil_after_finalization(ThreadId id, const ThreadState& state, const Stack& stack,
                                     Out& out);
  void forget_pending(NodeId stream_node, const HostFunction& host_function);
  // host-function-lost-at-exit (sanitizer_runs.cpp).
  void note_launcher_description(const HostFunctionEnqueued& event);
  void note_driver_enqueue(const HostFunctionEnqueued& event);
  void report_lost(const std::vector<HostFunctionRuns::Lost>& lost, Out& out);
  std::string pending_summary(const std::vector<NodeId>& streams) const;

  const Options& options_;
  DriverBehaviour behaviour_;
  bool fast_paths_;
  LockOrderGraph graph_;
  NodeId gil_;
  std::vector<EdgeEvidence> evidence_;  // by EdgeId
  std::vector<NodeId> held_nodes_;      // held_nodes()'s buffer
  std::vector<NodeId> call_holders_;    // driver_call_enter's: who the call's waits are drawn from
  std::vector<Handle> caller_contexts_;  // caller_state()'s buffer
  // begin_nodes()'s last answer, by what it depends on (with the fast paths only): host functions
  // come stream after stream from the same few, and the answer costs four pseudo-locks made and looked
  // up. Good while its nodes are alive: a retired stream or context takes a new node.
  struct RecentBegin {
    bool valid = false;
    Handle context = 0;
    std::optional<Handle> stream;
    BeginNodes nodes;
  };
  RecentBegin recent_begin_;
  std::unordered_map<ThreadId, ThreadState> threads_;
  ThreadState* last_thread_ = nullptr;  // see thread()
  ThreadId last_thread_id_ = 0;
  // Host functions enqueued on a stream and not yet run: what that stream's completion stands for.
  static constexpr std::size_t kPendingShown = 16;
  std::unordered_map<NodeId, std::deque<HostFunction>> pending_;
  HostFunctionLifetime lifetime_;
  HostFunctionRuns runs_;
  // What launchers said about the host functions they handed to the driver, by the userData they
  // gave it, with where they were enqueued: joins the driver's record of a run (run_key, userData)
  // with the launcher's description. Erased when the launcher releases the callable.
  struct LauncherDescription {
    HostFunction host_function;
    std::shared_ptr<const Stack> enqueue_stack;  // never null
  };
  std::unordered_map<std::uint64_t, LauncherDescription> described_;  // by userData
  std::unordered_map<std::uint64_t, std::uint64_t> described_by_id_;   // callable id -> userData
  NodePool<decltype(described_)> described_nodes_;
  NodePool<decltype(described_by_id_)> described_by_id_nodes_;
  bool finalizing_ = false;
  std::unordered_set<std::string> reported_keys_;
  std::size_t ignored_events_ = 0;
  std::function<Stack(ThreadId)> capture_stack_;
  std::function<std::shared_ptr<const Stack>(ThreadId)> capture_enqueue_stack_;
};

}  // namespace gilsan::checkers
