// The host-function-lost-at-exit half of SanitizerModel: joining the driver's record of each run with
// the launcher's description, and reporting the runs whose callable never ran (host_function_runs.h).
#include "checkers/core/describe.h"
#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {

void SanitizerModel::note_launcher_description(const HostFunctionEnqueued& event) {
  const HostFunction& host_function = event.host_function;
  if (host_function.user_data == 0 || !options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  LauncherDescription& described =
      described_nodes_.find_or_make(described_, host_function.user_data, [](LauncherDescription& kept) {
        reset_keeping_buffers(kept.host_function);
        kept.enqueue_stack = nullptr;
      })->second;
  // A graph's callable is described once, with where it was added; a stream launch at each launch.
  if (event.thread != 0 || described.host_function.id != host_function.id || !described.enqueue_stack) {
    described.host_function = host_function;
    // Where a Python host function was enqueued is worth a stack: its loss is what users hear of.
    described.enqueue_stack = host_function.kind == HostFunctionKind::python && event.thread != 0
                                  ? kept_enqueue_stack(event.thread, event.stack)
                                  : shared_stack(event.stack);
  }
  if (host_function.id != 0)
    described_by_id_nodes_.find_or_make(described_by_id_, host_function.id)->second = host_function.user_data;
}

namespace {

// Whether a run described by `host_function`, enqueued by a thread named `name` at `stack`, is told
// as `shared` tells it (its run key, context, stream, id and userData are the run's own).
bool same_description(const HostFunctionRuns::Description& shared, const HostFunction& host_function,
                      const std::string& name, const std::shared_ptr<const Stack>& stack) {
  const HostFunction& kept = shared.host_function;
  return kept.kind == host_function.kind && kept.callable == host_function.callable &&
         kept.implementation == host_function.implementation &&
         (shared.enqueue_stack == stack || *shared.enqueue_stack == *stack) &&
         shared.enqueued_by_name == name;
}

}  // namespace

void SanitizerModel::note_driver_enqueue(const HostFunctionEnqueued& event) {
  const HostFunction& seen = event.host_function;
  const auto described = seen.user_data != 0 ? described_.find(seen.user_data) : described_.end();
  if (described == described_.end() && seen.stream) {
    // A host function only the driver saw (a peer's): its stream's completion now waits for it.
    auto& pending = pending_[graph_.node_for(PseudoLock::stream_completion(seen.context, *seen.stream))];
    if (pending.size() < kPendingShown) pending.push_back(seen);
  }
  if (!options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  const HostFunction& run = described != described_.end() ? described->second.host_function : seen;
  std::shared_ptr<const Stack> stack;
  if (described != described_.end()) {
    stack = described->second.enqueue_stack;
  } else {
    stack = seen.kind == HostFunctionKind::python ? kept_enqueue_stack(event.thread, event.stack) : shared_stack({});
  }
  ThreadState& state = thread(event.thread);
  // A launch loop enqueues the same host function from the same place again and again: its runs share
  // one description, made the first time (what a thread running a host function enqueues names that
  // host function, so it is not shared).
  if (!state.last_enqueued || !state.host_functions.empty() ||
      !same_description(*state.last_enqueued, run, state.name, stack)) {
    auto description = std::make_shared<HostFunctionRuns::Description>();
    description->host_function = run;
    description->enqueued_by = describe(snapshot(event.thread, state));
    description->enqueued_by_name = state.name;
    description->enqueue_stack = std::move(stack);
    state.last_enqueued = std::move(description);
  }
  HostFunctionRuns::Run identity{seen.run_key, seen.context, seen.stream, run.id, run.user_data};
  runs_.enqueued(identity, state.last_enqueued);
}

void SanitizerModel::host_function_skipped(ThreadId id, Out& out) {
  if (!options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  const ThreadState& state = acting(id, out);
  // The driver's own record is the outermost one: the launcher's trampoline nests inside it.
  for (const ActiveHostFunction& active : state.host_functions) {
    if (active.host_function.run_key == 0) continue;
    if (auto lost = runs_.skipped(active.host_function.run_key)) report_lost({*lost}, out);
    return;
  }
  ++ignored_events_;
}

void SanitizerModel::interpreter_finished(Out& out) {
  if (options_.is_enabled(Checker::host_function_lost_at_exit)) report_lost(runs_.interpreter_finished(), out);
}

void SanitizerModel::report_lost(const std::vector<HostFunctionRuns::Lost>& lost, Out& out) {
  for (const HostFunctionRuns::Lost& run : lost) {
    Report report;
    report.checker = Checker::host_function_lost_at_exit;
    report.summary = describe(run.host_function) + " " + run.why;
    report.message =
        "The user's callable never ran, and nothing said so. Synchronize the streams (or the device) "
        "before the interpreter exits, so that every host function runs while Python still can.";
    if (!run.enqueued_by.empty()) report.message += " It was enqueued by " + run.enqueued_by + ".";
    report.host_function = run.host_function;
    report.stack = run.enqueue_stack;
    emit(std::move(report), "host-function-lost-at-exit|" + std::to_string(run.run_key), out);
  }
}

}  // namespace gilsan::checkers
