// The findings half of SanitizerModel: building reports for cycles and for the other checkers.
#include <algorithm>

#include "checkers/core/describe.h"
#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {
namespace {

std::string join_stack(const Stack& stack) {
  std::string joined;
  for (const std::string& frame : stack) joined += frame + "\n";
  return joined;
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

}  // namespace

void SanitizerModel::emit(Report report, const std::string& key, Out& out) {
  if (!reported_keys_.insert(key).second) return;
  // Captured only now that the report is known to be new (a cycle's stacks are its edges').
  if (report.checker != Checker::lock_order_cycle && report.thread)
    report.stack = kept_stack(report.thread->id, report.stack);
  out.push_back(std::move(report));
}

void SanitizerModel::report_cycle_through(EdgeId, NodeId from, NodeId to, Out& out) {
  if (!options_.is_enabled(Checker::lock_order_cycle)) return;
  const auto cycle = graph_.shortest_cycle_through(from, to);
  if (!cycle) return;
  const bool restates_shorter_cycle = graph_.has_shortcut(*cycle, [this](EdgeId a, EdgeId b) {
    return evidence_[a].thread.id == evidence_[b].thread.id;
  });
  if (restates_shorter_cycle) return;
  const std::vector<NodeId> canonical = graph_.canonical(*cycle);
  // Serials, not ids: a slot's next node gets another serial, so its cycles are reported afresh.
  std::string key = "lock-order-cycle";
  for (NodeId node : canonical) key += "|" + std::to_string(graph_.serial(node));
  emit(cycle_report(canonical), key, out);
}

Report SanitizerModel::cycle_report(const std::vector<NodeId>& cycle) const {
  Report report;
  report.checker = Checker::lock_order_cycle;
  for (NodeId node : cycle) report.cycle.push_back(graph_.lock(node));
  std::string path;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const std::size_t next = (i + 1) % cycle.size();
    const EdgeEvidence& evidence = evidence_[*graph_.find_edge(cycle[i], cycle[next])];
    report.edges.push_back(
        {i, next, edge_sentence(report.cycle[i], report.cycle[next], evidence), evidence});
    path += report.cycle[i].label() + " -> ";
  }
  path += report.cycle.front().label();
  report.deadlock_class = classify_cycle(report.cycle);
  report.summary = "potential deadlock: " + path;
  return report;
}

void SanitizerModel::report_gil_held_blocking_call(const DriverCallEnter& event,
                                                   const ThreadState& state,
                                                   const std::vector<NodeId>& waited_streams,
                                                   bool blocked_while_host_function_runs,
                                                   Out& out) {
  if (!options_.is_enabled(Checker::gil_held_blocking_call)) return;
  const ActiveCall& call = state.calls.back();
  Report report;
  report.checker = Checker::gil_held_blocking_call;
  report.summary = describe(call.call) + " can block with the GIL held";
  std::string why;
  if (!event.waits.empty()) {
    why = "it waits for ";
    if (!event.waits.streams.empty()) {
      for (std::size_t i = 0; i < waited_streams.size(); ++i) {
        why += (i == 0 ? "" : ", ") + graph_.lock(waited_streams[i]).label();
      }
      if (event.waits.whole_context) why += " and ";
    }
    if (event.waits.whole_context) why += "every stream of context " + hex(event.context);
    why += "; " + pending_summary(waited_streams);
  } else if (blocked_while_host_function_runs) {
    why = "the driver blocks it while a host function of context " + hex(event.context) + " runs";
  }
  report.message = why +
                   ". A host function that needs the GIL (a Python callback) cannot run "
                   "until this call returns; release the GIL around blocking driver calls.";
  report.thread = snapshot(event.thread, state);
  report.call = call.call;
  report.stack = call.stack;
  emit(std::move(report),
       "gil-held-blocking-call|" + call.call.entry_point + "|" + join_stack(call.stack), out);
}

void SanitizerModel::report_host_function_call(ThreadId id, const ThreadState& state,
                                               const ActiveCall& call, Out& out) {
  if (!options_.is_enabled(Checker::cuda_call_in_host_function)) return;
  // Error-string lookups read a constant table and touch no device, context or stream; bindings call
  // them to word the exception of a refused call, which is itself reported.
  if (call.call.entry_point == "cuGetErrorName" || call.call.entry_point == "cuGetErrorString") return;
  const HostFunction* host_function = state.current_host_function();
  Report report;
  report.checker = Checker::cuda_call_in_host_function;
  report.summary = (host_function ? describe(*host_function) : std::string("a host function")) +
                   " called " + describe(call.call) + ", which " +
                   (call.call.returned ? "returned " : "") + describe_result(call.call);
  if (!call.call.returned) {
    report.message =
        "The call had not returned when the run ended: it may wait for work that "
        "waits for this host function.";
  } else if (call.call.result == kCudaErrorNotPermitted) {
    report.message = "The driver refused it (NOT_PERMITTED): host functions must not call CUDA.";
  } else {
    report.message =
        "The driver did not refuse it, but CUDA documents that host functions must "
        "not make CUDA calls; another driver may refuse it or hang.";
  }
  report.thread = snapshot(id, state);
  report.call = call.call;
  if (host_function) report.host_function = *host_function;
  report.stack = call.stack;
  const std::string result =
      call.call.returned && call.call.result ? std::to_string(*call.call.result) : "pending";
  emit(std::move(report),
       "cuda-call-in-host-function|" + call.call.entry_point + "|" + result + "|" +
           (host_function ? host_function->callable : "") + "|" + join_stack(call.stack),
       out);
}

void SanitizerModel::report_host_function_start(const HostFunctionBegin& event,
                                                const ThreadState& state, Out& out) {
  const HostFunction& host_function = event.host_function;
  if (options_.is_enabled(Checker::host_function_lifetime)) {
    if (auto finding = lifetime_.began(host_function)) {
      Report report;
      report.checker = Checker::host_function_lifetime;
      report.summary = finding->message;
      report.thread = snapshot(event.thread, state);
      report.host_function = finding->host_function;
      report.message =
          "The driver ran a host function whose callable its launcher had already let "
          "go of: a use after free.";
      report.stack = event.stack;
      emit(std::move(report), "host-function-lifetime|" + finding->message, out);
    }
  }
  if (finalizing_ && host_function.kind == HostFunctionKind::python &&
      options_.is_enabled(Checker::host_function_after_finalization)) {
    Report report;
    report.checker = Checker::host_function_after_finalization;
    report.summary = describe(host_function) + " began after interpreter finalization began";
    report.message =
        "Its Python callable cannot run any more (PyGILState_Ensure ends the thread on "
        "3.12 and hangs it on 3.14); synchronize streams before the interpreter exits.";
    report.thread = snapshot(event.thread, state);
    report.host_function = host_function;
    report.stack = event.stack;
    emit(std::move(report),
         "host-function-after-finalization|" + host_function.implementation + "|" +
             host_function.callable,
         out);
  }
}

void SanitizerModel::report_gil_after_finalization(ThreadId id, const ThreadState& state,
                                                   const Stack& stack, Out& out) {
  if (!options_.is_enabled(Checker::host_function_after_finalization)) return;
  const HostFunction& host_function = *state.current_host_function();
  Report report;
  report.checker = Checker::host_function_after_finalization;
  report.summary = describe(host_function) + " takes the GIL after interpreter finalization began";
  report.message =
      "A host function must not enter the interpreter once it is finalizing "
      "(PyGILState_Ensure ends the thread on 3.12 and hangs it on 3.14).";
  report.thread = snapshot(id, state);
  report.host_function = host_function;
  report.stack = stack;
  emit(std::move(report),
       "host-function-after-finalization|" + host_function.implementation + "|" +
           host_function.callable,
       out);
}

void SanitizerModel::unraisable_in_host_function(const UnraisableInHostFunction& event, Out& out) {
  if (!options_.is_enabled(Checker::unraisable_in_host_function)) return;
  const ThreadState& state = acting(event.thread, out);
  const HostFunction* host_function = state.current_host_function();
  Report report;
  report.checker = Checker::unraisable_in_host_function;
  report.summary = "an exception escaped " +
                   (host_function ? describe(*host_function) : std::string("a host function")) +
                   ": " + first_line(event.message);
  report.message = "Exception: " + std::string(event.message);
  report.thread = snapshot(event.thread, state);
  if (host_function) report.host_function = *host_function;
  report.stack = event.stack;
  emit(std::move(report),
       "unraisable-in-host-function|" + (host_function ? host_function->callable : "") + "|" +
           std::string(event.message),
       out);
}

void SanitizerModel::callable_released(const CallableReleased& event, Out& out) {
  if (auto described = described_by_id_.find(event.id); described != described_by_id_.end()) {
    auto entry = described_.find(described->second);
    if (entry != described_.end() && entry->second.host_function.id == event.id)
      described_nodes_.erase(described_, entry);
    described_by_id_nodes_.erase(described_by_id_, described);
  }
  if (!options_.is_enabled(Checker::host_function_lifetime)) return;
  auto finding = lifetime_.released(event.id, event.abandoned_runs);
  if (!finding) return;
  const ThreadState& state = acting(event.thread, out);
  Report report;
  report.checker = Checker::host_function_lifetime;
  report.summary = finding->message;
  report.message = "The driver may still call it: it must stay alive until its last run.";
  report.thread = snapshot(event.thread, state);
  report.host_function = finding->host_function;
  report.stack = event.stack;
  emit(std::move(report), "host-function-lifetime|" + finding->message, out);
}

void SanitizerModel::graph_holds_callable(std::uint64_t graph, const HostFunction& host_function) {
  note_launcher_description(HostFunctionEnqueued{0, host_function, {}});
  if (options_.is_enabled(Checker::host_function_lifetime))
    lifetime_.graph_holds(graph, host_function);
}

void SanitizerModel::graph_destroyed(std::uint64_t graph) {
  if (options_.is_enabled(Checker::host_function_lifetime)) lifetime_.graph_destroyed(graph);
}

void SanitizerModel::forget_pending(NodeId stream_node, const HostFunction& host_function) {
  auto found = pending_.find(stream_node);
  if (found == pending_.end()) return;
  auto& pending = found->second;
  auto same = std::find_if(pending.begin(), pending.end(), [&](const HostFunction& candidate) {
    return host_function.id != 0 ? candidate.id == host_function.id
                                 : candidate.callable == host_function.callable;
  });
  if (same != pending.end()) pending.erase(same);
}

std::string SanitizerModel::pending_summary(const std::vector<NodeId>& streams) const {
  std::string listed;
  for (NodeId stream : streams) {
    auto found = pending_.find(stream);
    if (found == pending_.end()) continue;
    for (const HostFunction& host_function : found->second) {
      listed += (listed.empty() ? "" : "; ") + describe(host_function);
    }
  }
  return listed.empty() ? "no host function is known to be pending there now"
                        : "pending there: " + listed;
}

void SanitizerModel::finish(Out& out) {
  if (options_.is_enabled(Checker::host_function_lost_at_exit)) report_lost(runs_.process_ending(), out);
  std::vector<ThreadId> ids;
  for (const auto& [id, state] : threads_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (ThreadId id : ids) {
    const ThreadState& state = threads_.at(id);
    if (state.host_functions.empty()) continue;
    for (const ActiveCall& call : state.calls) report_host_function_call(id, state, call, out);
  }
  if (!options_.is_enabled(Checker::host_function_lifetime)) return;
  for (const auto& finding : lifetime_.at_finish()) {
    Report report;
    report.checker = Checker::host_function_lifetime;
    report.summary = finding.message;
    report.message = "A leak: once no graph can launch it, the callable should be released.";
    report.host_function = finding.host_function;
    emit(std::move(report), "host-function-lifetime|" + finding.message, out);
  }
}

}  // namespace gilsan::checkers
