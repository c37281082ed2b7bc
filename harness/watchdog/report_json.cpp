// The JSON report, schema "gilsan-hang-report/1" (docs/report-schema.md). Handles and addresses are
// strings ("0x1f"), because JSON numbers lose precision above 2^53.
#include <nlohmann/json.hpp>

#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/proc_threads.h"
#include "harness/watchdog/report.h"

namespace gilsan::watchdog {
namespace {

using nlohmann::json;

json edge_json(const WaitEdge& edge) {
  return json{{"from", edge.from},         {"to", edge.to},           {"relation", to_string(edge.relation)},
              {"text", edge.text},         {"inferred", edge.inferred}, {"evidence", edge.evidence}};
}

json host_function_json(const board::HostFunctionRecord& record) {
  return json{{"id", record.id},
              {"context", hex(record.context)},
              {"stream", hex(record.stream)},
              {"kind", board::to_string(record.kind)},
              {"implementation", record.implementation},
              {"description", record.description}};
}

json progress_json(const board::ProgressCounters& counters) {
  json out = json::object();
  for (std::size_t i = 0; i < counters.size(); ++i) {
    out[board::to_string(static_cast<board::ProgressKind>(i))] = counters[i];
  }
  return out;
}

json thread_json(const HangReport& report, const ThreadSnapshot& thread) {
  json out{{"tid", thread.tid}, {"exited", thread.exited()}};
  if (thread.proc) {
    json syscall = nullptr;
    if (thread.proc->syscall.kind == SyscallState::Kind::InSyscall) {
      syscall = json{{"number", thread.proc->syscall.number}, {"name", syscall_name(thread.proc->syscall.number)}};
    }
    out["kernel"] = json{{"state", std::string(1, thread.proc->state)},
                         {"comm", thread.proc->comm},
                         {"wchan", thread.proc->wchan},
                         {"syscall", syscall},
                         {"running", thread.proc->syscall.kind == SyscallState::Kind::Running},
                         {"cpu_ns", thread.proc->cpu_ns}};
  } else {
    out["kernel"] = nullptr;
  }
  const ThreadFacts* facts = report.classification.facts.find(thread.tid);
  if (facts != nullptr) {
    out["label"] = facts->label();
    out["role"] = facts->role_label;
    out["on_board"] = thread.board.has_value();
    out["gil"] = json{{"state", board::to_string(facts->gil.state)},
                      {"inferred", facts->gil.inferred},
                      {"source", facts->gil.source}};
    out["call"] = nullptr;
    if (facts->call) {
      const CallFact& call = *facts->call;
      out["call"] = json{{"entry_point", call.entry_point},
                         {"context", call.handles_known ? json(hex(call.context)) : json(nullptr)},
                         {"stream", call.handles_known ? json(hex(call.stream)) : json(nullptr)},
                         {"event", call.handles_known ? json(hex(call.event)) : json(nullptr)},
                         {"inferred", call.inferred},
                         {"waiting_ms", call.entered_ns != 0 && report.snapshot.taken_ns > call.entered_ns
                                            ? json((report.snapshot.taken_ns - call.entered_ns) / 1'000'000)
                                            : json(nullptr)}};
    }
    out["host_function"] = nullptr;
    if (facts->host_function) {
      out["host_function"] = host_function_json(facts->host_function->record);
      out["host_function"]["inferred"] = facts->host_function->inferred;
    }
    out["native_wait"] = json{{"kind", to_string(facts->native_wait.kind)}, {"frame", facts->native_wait.frame}};
    if (const std::optional<board::LockRecord>& lock = facts->waiting_lock) {
      out["waiting_lock"] = json{{"id", hex(lock->id)},
                                 {"name", lock->name},
                                 {"kind", board::to_string(lock->kind)},
                                 {"label", facts->waiting_lock_label},
                                 {"asked_for_in", facts->waiting_lock_site.empty() ? json(nullptr) : json(facts->waiting_lock_site)},
                                 {"holder_tid", lock->holder_tid != 0 ? json(lock->holder_tid) : json(nullptr)},
                                 {"owner", facts->waiting_lock_owner.empty() ? json(nullptr) : json(facts->waiting_lock_owner)}};
    } else {
      out["waiting_lock"] = nullptr;
    }
    json held = json::array();
    for (const board::LockRecord& lock : facts->held_locks) held.push_back({{"id", hex(lock.id)}, {"name", lock.name}});
    out["held_locks"] = held;
    out["activity"] = facts->activity.empty() ? json(nullptr) : json(facts->activity);
  }
  json native = json::array();
  for (const NativeFrame& frame : thread.native_stack) {
    native.push_back(json{{"address", hex(frame.address)},
                          {"symbol", frame.symbol},
                          {"symbol_offset", frame.symbol_offset},
                          {"module", frame.module},
                          {"module_offset", hex(frame.module_offset)},
                          {"file", frame.file},
                          {"line", frame.line},
                          {"inlined", frame.inlined}});
  }
  out["native_stack"] = native;
  out["native_stack_note"] = thread.native_stack_note;
  out["python_stack"] = nullptr;
  if (thread.python_stack) {
    json python = json::array();
    for (const PythonFrame& frame : *thread.python_stack) {
      python.push_back(json{{"file", frame.file}, {"line", frame.line}, {"function", frame.function}});
    }
    out["python_stack"] = python;
  }
  return out;
}

}  // namespace

std::string render_json(const HangReport& report) {
  const Classification& classification = report.classification;
  const Snapshot& snapshot = report.snapshot;
  json out;
  out["schema"] = kReportSchema;
  out["kind"] = to_string(report.kind);
  out["class"] = report.class_name;
  out["summary"] = report.summary;
  out["pid"] = snapshot.pid;
  out["timing"] = json{{"quiet_ms", report.quiet_ns / 1'000'000},
                       {"quiet_for_ms", snapshot.taken_ns > snapshot.last_progress_ns
                                            ? (snapshot.taken_ns - snapshot.last_progress_ns) / 1'000'000
                                            : 0},
                       {"snapshot_ms", report.reported_ns > report.detected_ns
                                           ? (report.reported_ns - report.detected_ns) / 1'000'000
                                           : 0},
                       {"certain_for_ms", report.certain_for_ns > 0 ? json(report.certain_for_ns / 1'000'000)
                                                                    : json(nullptr)}};
  out["crash"] = snapshot.crash ? json{{"signal", snapshot.crash->signal},
                                       {"signal_name", signal_name(snapshot.crash->signal)},
                                       {"tid", snapshot.crash->tid},
                                       {"address", hex(snapshot.crash->address)}}
                                : json(nullptr);
  json cycle = json::array();
  for (const WaitEdge& edge : classification.cycle) cycle.push_back(edge_json(edge));
  out["cycle"] = cycle;
  out["cycles_found"] = classification.cycles_found;
  out["reasons"] = classification.reasons;
  out["inferred"] = classification.inferred;
  out["notes"] = snapshot.notes;
  out["blocked_tids"] = report.blocked_tids;
  out["interpreter_finalizing"] = json{{"value", classification.facts.finalizing},
                                       {"inferred", classification.facts.finalizing_inferred}};
  json nodes = json::array();
  for (const WaitNode& node : classification.graph.nodes()) {
    json entry{{"id", node.id}, {"kind", to_string(node.kind)}, {"label", node.label}};
    if (node.kind == NodeKind::thread) entry["tid"] = node.tid;
    nodes.push_back(entry);
  }
  json edges = json::array();
  for (const WaitEdge& edge : classification.graph.edges()) edges.push_back(edge_json(edge));
  out["graph"] = json{{"nodes", nodes}, {"edges", edges}};
  out["progress"] = progress_json(snapshot.progress);
  json pending = json::array();
  for (const board::HostFunctionRecord& record : snapshot.pending_host_functions) {
    pending.push_back(host_function_json(record));
  }
  out["pending_host_functions"] = pending;
  json threads = json::array();
  for (const ThreadSnapshot& thread : snapshot.threads) threads.push_back(thread_json(report, thread));
  out["threads"] = threads;
  out["python_stack_text"] = snapshot.python_stack_text;
  return out.dump(2) + "\n";
}

}  // namespace gilsan::watchdog
