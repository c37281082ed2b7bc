#include "harness/reports/suite_results_json.h"

#include <nlohmann/json.hpp>

#include "harness/reports/failure_excerpt.h"

namespace gilsan {
namespace {

const char* status_name(ResultStatus status) {
  switch (status) {
    case ResultStatus::Passed: return "passed";
    case ResultStatus::Failed: return "failed";
    case ResultStatus::Skipped: return "skipped";
    case ResultStatus::Interrupted: return "interrupted";
    case ResultStatus::HarnessError: return "error";
  }
  return "error";
}

nlohmann::json optional_text(const std::optional<std::string>& text) {
  return text ? nlohmann::json(*text) : nlohmann::json(nullptr);
}

}  // namespace

std::string suite_results_json(const std::vector<ScenarioResult>& results, const RunSettings& settings,
                               double total_seconds) {
  nlohmann::json records = nlohmann::json::array();
  std::string platform;  // the first run that names one: every run of a suite is on the same machine
  for (const ScenarioResult& result : results) {
    const ChildReport& report = result.run.report;
    records.push_back({{"scenario", result.scenario},
                       {"implementation", optional_text(result.implementation)},
                       {"implementation_version", optional_text(report.implementation_version)},
                       {"expect", result.header.expect.to_string()},
                       {"outcome", result.outcome.to_string()},
                       {"status", status_name(result.status())},
                       {"seconds", result.run.elapsed.count()},
                       {"excerpt", result.status() == ResultStatus::Failed || result.status() == ResultStatus::HarnessError
                                       ? failure_excerpt(result)
                                       : ""}});
    if (platform.empty() && report.platform) platform = *report.platform;
  }
  // The gilsan that ran them (merged results keep the one their files name); this one's for none.
  const std::string version = !results.empty() && !results.front().gilsan_version.empty()
                                  ? results.front().gilsan_version
                                  : gilsan_version();
  nlohmann::json document = {
      {"schema", "gilsan-suite-results/1"},
      {"driver", settings.driver ? settings.driver->kind : settings.driver_request},
      {"driver_reason", settings.driver ? settings.driver->reason : ""},
      {"sanitize", settings.sanitize},
      {"platform", platform},
      {"gilsan", version},
      {"total_seconds", total_seconds},
      {"results", std::move(records)},
  };
  return document.dump(2) + "\n";
}

}  // namespace gilsan
