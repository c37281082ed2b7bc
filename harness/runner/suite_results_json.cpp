#include "harness/runner/suite_results_json.h"

#include <nlohmann/json.hpp>

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

}  // namespace

std::string suite_results_json(const std::vector<ScenarioResult>& results, const RunSettings& settings,
                               double total_seconds) {
  nlohmann::json records = nlohmann::json::array();
  for (const ScenarioResult& result : results) {
    records.push_back({{"scenario", result.scenario},
                       {"expect", result.header.expect.to_string()},
                       {"outcome", result.outcome.to_string()},
                       {"status", status_name(result.status())},
                       {"seconds", result.run.elapsed.count()}});
  }
  nlohmann::json document = {
      {"schema", "gilsan-suite-results/1"},
      {"driver", settings.driver ? settings.driver->kind : settings.driver_request},
      {"driver_reason", settings.driver ? settings.driver->reason : ""},
      {"sanitize", settings.sanitize},
      {"total_seconds", total_seconds},
      {"results", std::move(records)},
  };
  return document.dump(2) + "\n";
}

}  // namespace gilsan
