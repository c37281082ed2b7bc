#include "harness/watchdog/report.h"

#include <signal.h>
#include <string.h>

#include <algorithm>

#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/wait_graph_builder.h"

namespace gilsan::watchdog {
namespace {

std::string crash_summary(const HangReport& report) {
  const board::CrashRecord& crash = *report.snapshot.crash;
  std::string text = "crash: " + signal_name(crash.signal) + " (address " + hex(crash.address) + ") in ";
  const ThreadFacts* thread = report.classification.facts.find(crash.tid);
  text += thread != nullptr ? thread->label() : "thread " + std::to_string(crash.tid);
  if (thread != nullptr && thread->host_function) {
    text += " while running " + describe_host_function(thread->host_function->record);
  }
  return text;
}

}  // namespace

std::string signal_name(int signal_number) {
  const char* abbreviation = ::sigabbrev_np(signal_number);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal_number);
}

std::string milliseconds_text(std::uint64_t ns) { return std::to_string((ns + 500'000) / 1'000'000) + " ms"; }

HangReport make_report(Detection detection, const DriverCallBlocksPredicate& blocks_while_host_function_runs) {
  HangReport report;
  report.kind = detection.kind;
  report.snapshot = std::move(detection.snapshot);
  report.detected_ns = detection.detected_ns;
  report.reported_ns = detection.reported_ns;
  report.quiet_ns = detection.quiet_ns;
  report.blocked_tids = std::move(detection.blocked_tids);
  report.certain_for_ns = detection.certain_for_ns;
  report.classification = classify(report.snapshot, blocks_while_host_function_runs);
  if (report.kind == DetectionKind::Crash && report.snapshot.crash) {
    report.class_name = "crash";
    report.summary = crash_summary(report);
    // The hang rules do not apply to a crash; the graph stays for what the other threads were doing.
    report.classification.reasons = {report.summary};
  } else {
    report.class_name = to_string(report.classification.deadlock_class);
    std::uint64_t quiet_for = report.snapshot.taken_ns > report.snapshot.last_progress_ns
                                  ? report.snapshot.taken_ns - report.snapshot.last_progress_ns
                                  : 0;
    report.summary = report.class_name + ": no progress for " + milliseconds_text(quiet_for) + ", " +
                     (report.classification.cycle.empty()
                          ? std::string("no cycle")
                          : "a cycle of " + std::to_string(report.classification.cycle.size()) + " waits");
    // The watchdog did not call it a hang (progress was seen within its quiet period, or threads ran):
    // what the classifier makes of the moment of the timeout is a lead, not a verdict.
    if (report.kind == DetectionKind::Timeout) report.summary = "timed out; at the timeout, " + report.summary;
  }
  return report;
}

bool needs_the_longer_watch(const HangReport& report) {
  if (report.class_name == "unknown") return true;
  return std::any_of(report.classification.cycle.begin(), report.classification.cycle.end(),
                     [](const WaitEdge& edge) { return edge.evidence == kNativeConditionWait; });
}

}  // namespace gilsan::watchdog
