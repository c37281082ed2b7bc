// HangReport: a Detection, classified, in the three forms gilsan writes: text a person reads in ten
// seconds, versioned JSON (docs/report-schema.md) and a Graphviz DOT picture of the wait-for graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/watchdog/classifier.h"
#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/watchdog.h"

namespace gilsan::watchdog {

inline constexpr const char* kReportSchema = "gilsan-hang-report/1";

struct HangReport {
  DetectionKind kind = DetectionKind::Hang;
  std::string class_name;  // a deadlock class (deadlock_class.h), or "crash"
  std::string summary;     // one line
  Classification classification;
  Snapshot snapshot;
  std::uint64_t detected_ns = 0;
  std::uint64_t reported_ns = 0;
  std::uint64_t quiet_ns = 0;
  std::vector<int> blocked_tids;
  std::uint64_t certain_for_ns = 0;  // Detection::certain_for_ns: reported before the quiet period
};

HangReport make_report(Detection detection, const DriverCallBlocksPredicate& blocks_while_host_function_runs);

// A hang the runner reports only once the quiet has lasted the unexplained-hang deferral
// (Watchdog::defer_unexplained_hang): one the classifier cannot explain (class unknown), or one whose
// cycle closes only through a guessed notifier of a native condition variable, which a native thread
// the board does not see may still signal (a slow call, not a deadlock).
bool needs_the_longer_watch(const HangReport& report);

// Short: for a person reading a CI log (the cycle's threads, their Python stacks, the program's own
// native frames); Full: every thread and frame (gilsan's own left out), `gilsan run --report full`.
enum class TextDetail { Short, Full };
std::string render_text(const HangReport& report, TextDetail detail = TextDetail::Short);
std::string render_json(const HangReport& report);  // two-space indent, trailing newline
std::string render_dot(const HangReport& report);

// "SIGSEGV", or "signal 42".
std::string signal_name(int signal_number);

// A duration for a report, to the nearest millisecond: "512 ms".
std::string milliseconds_text(std::uint64_t ns);

}  // namespace gilsan::watchdog
