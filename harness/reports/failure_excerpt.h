// What explains a run that did not go as expected, in the few lines a CI log, an ::error annotation or
// the suite's failures section shows: the whole cycle, every numbered step, and the verdict, never a
// cut in the middle of it (who waits for the GIL and who holds it are the cycle's last steps).
#pragma once

#include <string>
#include <string_view>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The watchdog's report (a hang, a crash, a timeout's snapshot): its header and summary lines, the
// cycle with every step, and the reasons; no thread stacks.
std::string watchdog_excerpt(std::string_view report_text);

// The sanitizer's reports: each one's header line and numbered steps or explanation lines, no stacks;
// after kMostSanitizerReports reports, how many more there are.
std::string sanitizer_excerpt(std::string_view report_text);
inline constexpr int kMostSanitizerReports = 3;

// The excerpt of `result`: kept_excerpt when the suite kept only that, else the watchdog's report, else
// the sanitizer's reports, else the end of the child's stderr ("" when there is none).
std::string failure_excerpt(const ScenarioResult& result);

// What a suite keeps of a finished run when no JUnit or SARIF file will embed its output: the outcome,
// its numbers and, for a failure, its excerpt (cut at 4 KiB). The output (up to 16 MiB a stream) and
// the reports were shown as the run ended; keeping them would make a suite's memory grow with every
// run (ctest runner.soak.*).
void keep_only_the_excerpt(ScenarioResult& result);

}  // namespace gilsan
