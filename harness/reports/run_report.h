// The report of one scenario run: a text form for people, a JSON form for tools
// (schema "gilsan-run/1", described in docs/runner.md), and the one-line form `gilsan suite` prints.
#pragma once

#include <string>
#include <string_view>

#include "harness/runner/scenario_run.h"

namespace gilsan {

inline constexpr const char* kRunReportSchema = "gilsan-run/1";

std::string_view to_string(ResultStatus status);

// "PASS  path  outcome (0.12 s)", "FAIL  path  expected pass, got exception:ValueError (0.30 s)",
// "SKIP  path  reason". No trailing newline.
std::string one_line_report(const ScenarioResult& result);

// The report for a person; `full`: the watchdog's report with every thread and frame (--report full).
std::string text_report(const ScenarioResult& result, bool full = false);
std::string json_report(const ScenarioResult& result);

}  // namespace gilsan
