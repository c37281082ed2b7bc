// The JSON form of reports, schema "gilsan-sanitizer-report/1" (docs/sanitizer.md, "JSON schema").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checkers/core/report.h"

namespace gilsan::checkers {

inline constexpr std::string_view kReportSchema = "gilsan-sanitizer-report/1";

// The whole document. `complete` is false while the run goes on (a report file rewritten after each
// report) and true once finish() has run: a run killed by the watchdog leaves complete=false.
std::string render_json(const std::vector<Report>& reports, const RunSummary* finished);

}  // namespace gilsan::checkers
