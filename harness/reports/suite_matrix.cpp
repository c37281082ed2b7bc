#include "harness/reports/suite_matrix.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "harness/reports/failure_excerpt.h"
#include "harness/reports/run_report.h"

namespace gilsan {
namespace {

std::string cell(ResultStatus status) {
  switch (status) {
    case ResultStatus::Passed: return "ok";
    case ResultStatus::Failed: return "FAIL";
    case ResultStatus::Skipped: return "skip";
    case ResultStatus::Interrupted: return "stopped";
    case ResultStatus::HarnessError: return "error";
  }
  return "?";
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

std::string skip_summary(const std::vector<ScenarioResult>& results) {
  std::map<std::string, std::size_t> reasons;
  for (const ScenarioResult& result : results) {
    if (result.status() == ResultStatus::Skipped) ++reasons[result.outcome.detail];
  }
  std::vector<std::pair<std::string, std::size_t>> ordered(reasons.begin(), reasons.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [reason, count] : ordered)
    text += "SKIP " + std::to_string(count) + (count == 1 ? " run: " : " runs: ") + reason + "\n";
  return text;
}

std::string conformance_matrix(const std::vector<ScenarioResult>& results) {
  std::vector<std::string> implementations;
  std::vector<std::string> scenarios;
  std::map<std::pair<std::string, std::string>, std::string> cells;
  for (const ScenarioResult& result : results) {
    if (!result.implementation) continue;
    const std::string& implementation = *result.implementation;
    if (std::find(implementations.begin(), implementations.end(), implementation) == implementations.end())
      implementations.push_back(implementation);
    if (std::find(scenarios.begin(), scenarios.end(), result.scenario) == scenarios.end())
      scenarios.push_back(result.scenario);
    cells[{result.scenario, implementation}] = cell(result.status());
  }
  if (scenarios.empty()) return "";
  std::size_t first_width = 8;
  for (const std::string& scenario : scenarios) first_width = std::max(first_width, scenario.size() + 2);
  std::string text = "conformance (ok: as expected, FAIL: not, skip: its reason is on a SKIP line)\n";
  std::string header = padded("scenario", first_width);
  std::vector<std::size_t> widths;
  for (const std::string& implementation : implementations) {
    widths.push_back(std::max<std::size_t>(implementation.size() + 2, 7));
    header += padded(implementation, widths.back());
  }
  header.erase(header.find_last_not_of(' ') + 1);
  text += header + "\n";
  for (const std::string& scenario : scenarios) {
    std::string row = padded(scenario, first_width);
    for (std::size_t i = 0; i < implementations.size(); ++i) {
      const auto found = cells.find({scenario, implementations[i]});
      row += padded(found != cells.end() ? found->second : "", widths[i]);
    }
    row.erase(row.find_last_not_of(' ') + 1);
    text += row + "\n";
  }
  return text;
}

std::string failure_excerpts(const std::vector<ScenarioResult>& results) {
  std::string text;
  for (const ScenarioResult& result : results) {
    const ResultStatus status = result.status();
    if (status != ResultStatus::Failed && status != ResultStatus::HarnessError) continue;
    text += one_line_report(result) + "\n";
    const std::string excerpt = failure_excerpt(result);
    for (std::size_t start = 0; start < excerpt.size();) {
      const std::size_t end = excerpt.find('\n', start);
      text += "    " + excerpt.substr(start, end - start) + "\n";
      start = end == std::string::npos ? excerpt.size() : end + 1;
    }
  }
  return text.empty() ? "" : "failures:\n" + text;
}

}  // namespace gilsan
