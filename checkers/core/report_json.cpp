#include "checkers/core/report_json.h"

#include <nlohmann/json.hpp>

#include "checkers/core/describe.h"

namespace gilsan::checkers {
namespace {

using nlohmann::json;

json optional_hex(const std::optional<Handle>& handle) {
  return handle ? json(hex(*handle)) : json(nullptr);
}

json context_json(Handle context) { return context != 0 ? json(hex(context)) : json(nullptr); }

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json to_json(const HostFunction& host_function) {
  return {{"id", host_function.id != 0 ? json(hex(host_function.id)) : json(nullptr)},
          {"kind", to_string(host_function.kind)},
          {"implementation", text_or_null(host_function.implementation)},
          {"description", text_or_null(host_function.callable)},
          {"context", context_json(host_function.context)},
          {"stream", optional_hex(host_function.stream)}};
}

json to_json(const ThreadInfo& thread) {
  return {{"id", thread.id},
          {"name", text_or_null(thread.name)},
          {"host_function", thread.host_function ? to_json(*thread.host_function) : json(nullptr)}};
}

json to_json(const CallInfo& call) {
  const bool returned = call.returned && call.result.has_value();
  return {
      {"entry_point", call.entry_point},
      {"context", context_json(call.context)},
      {"stream", optional_hex(call.stream)},
      {"event", optional_hex(call.event)},
      {"returned", returned},
      {"result", returned ? json(*call.result) : json(nullptr)},
      {"result_name", returned ? text_or_null(call.result_name) : json(nullptr)},
      {"not_permitted", returned ? json(*call.result == kCudaErrorNotPermitted) : json(nullptr)}};
}

std::string_view to_string(WaitKind wait) {
  switch (wait) {
    case WaitKind::driver_wait:
      return "driver-wait";
    case WaitKind::driver_blocked:
      return "driver-blocked";
    case WaitKind::gil:
      return "gil";
    case WaitKind::user_lock:
      return "user-lock";
    case WaitKind::callback_thread:
      return "callback-thread";
  }
  return "gil";
}

json to_json(const PseudoLock& lock) {
  const bool has_context =
      lock.kind != PseudoLockKind::gil && lock.kind != PseudoLockKind::user_lock;
  return {
      {"kind", to_string(lock.kind)},
      {"label", lock.label()},
      {"context", has_context && lock.context != 0 ? json(hex(lock.context)) : json(nullptr)},
      {"stream",
       lock.kind == PseudoLockKind::stream_completion ? json(hex(lock.stream)) : json(nullptr)},
      {"lock", lock.kind == PseudoLockKind::user_lock ? json(hex(lock.lock)) : json(nullptr)},
      {"name", lock.kind == PseudoLockKind::user_lock ? text_or_null(lock.name) : json(nullptr)}};
}

json to_json(const Report& report, std::size_t id) {
  json cycle = json::array();
  for (const PseudoLock& lock : report.cycle) cycle.push_back(to_json(lock));
  json edges = json::array();
  for (const CycleEdge& edge : report.edges) {
    edges.push_back({{"from", edge.from},
                     {"to", edge.to},
                     {"sentence", edge.sentence},
                     {"wait", to_string(edge.evidence.wait)},
                     {"thread", to_json(edge.evidence.thread)},
                     {"call", edge.evidence.call ? to_json(*edge.evidence.call) : json(nullptr)},
                     {"stack", edge.evidence.stack}});
  }
  return {
      {"id", id},
      {"checker", to_string(report.checker)},
      {"class", report.deadlock_class ? json(to_string(*report.deadlock_class)) : json(nullptr)},
      {"summary", report.summary},
      {"cycle", cycle},
      {"edges", edges},
      {"thread", report.thread ? to_json(*report.thread) : json(nullptr)},
      {"call", report.call ? to_json(*report.call) : json(nullptr)},
      {"host_function", report.host_function ? to_json(*report.host_function) : json(nullptr)},
      {"message", text_or_null(report.message)},
      {"stack", report.stack}};
}

}  // namespace

std::string render_json(const std::vector<Report>& reports, const RunSummary* finished) {
  json document;
  document["schema"] = kReportSchema;
  document["complete"] = finished != nullptr;
  json list = json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) list.push_back(to_json(reports[i], i + 1));
  document["reports"] = list;
  if (finished) {
    json unused = json::array();
    for (const UnusedSuppression& suppression : finished->unused_suppressions) {
      unused.push_back({{"file", suppression.file},
                        {"line", suppression.line},
                        {"checker", suppression.checker},
                        {"pattern", suppression.pattern}});
    }
    document["suppressed"] = finished->suppressed;
    document["unused_suppressions"] = unused;
    document["ignored_events"] = finished->ignored_events;
    document["exit_code"] = finished->exit_code;
  } else {
    document["suppressed"] = nullptr;
    document["unused_suppressions"] = nullptr;
    document["ignored_events"] = nullptr;
    document["exit_code"] = nullptr;
  }
  // Invalid UTF-8 in a frame or a name (it comes from the process) must not make the report fail.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gilsan::checkers
