// The host-function-lost-at-exit half of SanitizerModel: joining the driver's record of each run with
// the launcher's description, and reporting the runs whose callable never ran (host_function_runs.h).
#include "checkers/core/describe.h"
#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {

void SanitizerModel::note_launcher_description(const HostFunctionEnqueued& event) {
  const HostFunction& host_function = event.host_function;
  if (host_function.user_data == 0 || !options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  LauncherDescription& described = described_[host_function.user_data];
  // A graph's callable is described once, with where it was added; a stream launch at each launch.
  if (event.thread != 0 || described.host_function.id != host_function.id) {
    described.host_function = host_function;
    // Where a Python host function was enqueued is worth a stack: its loss is what users hear of.
    described.enqueue_stack = host_function.kind == HostFunctionKind::python && event.thread != 0
                                  ? kept_stack(event.thread, event.stack)
                                  : event.stack;
  }
  if (host_function.id != 0) described_by_id_[host_function.id] = host_function.user_data;
}

void SanitizerModel::note_driver_enqueue(const HostFunctionEnqueued& event) {
  const HostFunction& seen = event.host_function;
  const auto described = seen.user_data != 0 ? described_.find(seen.user_data) : described_.end();
  if (described == described_.end() && seen.stream) {
    // A host function only the driver saw (a peer's): its stream's completion now waits for it.
    auto& pending = pending_[graph_.node_for(PseudoLock::stream_completion(seen.context, *seen.stream))];
    if (pending.size() < kPendingShown) pending.push_back(seen);
  }
  if (!options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  HostFunction run = described != described_.end() ? described->second.host_function : seen;
  run.run_key = seen.run_key;
  run.context = seen.context;
  run.stream = seen.stream;
  Stack stack;
  if (described != described_.end()) {
    stack = described->second.enqueue_stack;
  } else if (seen.kind == HostFunctionKind::python) {
    stack = kept_stack(event.thread, event.stack);
  }
  const ThreadState& state = thread(event.thread);
  runs_.enqueued(run, describe(snapshot(event.thread, state)), std::move(stack));
}

void SanitizerModel::host_function_skipped(ThreadId id, Out& out) {
  if (!options_.is_enabled(Checker::host_function_lost_at_exit)) return;
  const ThreadState& state = thread(id);
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
