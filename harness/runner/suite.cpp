#include "harness/runner/suite.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <system_error>

#include "harness/runner/junit_report.h"
#include "harness/runner/suite_results_json.h"

namespace gilsan {
namespace {

namespace fs = std::filesystem;

bool is_scenario_file(const fs::path& path) {
  return path.extension() == ".py" && !path.filename().string().starts_with('_');
}

std::string shown_path(const fs::path& path) {
  std::error_code error;
  const fs::path here = fs::current_path(error);
  const fs::path absolute = fs::absolute(path, error).lexically_normal();
  if (!here.empty()) {
    const fs::path relative = absolute.lexically_relative(here);
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
  }
  return absolute.string();
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream << contents;
  stream.close();
  if (!stream) throw std::system_error(errno, std::generic_category(), "cannot write " + path);
}

}  // namespace

std::vector<std::string> discover_scenarios(const std::vector<std::string>& roots) {
  std::vector<std::string> scenarios;
  for (const std::string& root : roots) {
    std::error_code error;
    if (fs::is_regular_file(root, error)) {
      scenarios.push_back(shown_path(root));
      continue;
    }
    if (!fs::is_directory(root, error)) throw ScenarioInputError(root, 0, "no such file or folder");
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory() && it->path().filename() == "__pycache__") {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && is_scenario_file(it->path())) found.push_back(shown_path(it->path()));
    }
    if (error) throw ScenarioInputError(root, 0, "cannot list the folder: " + error.message());
    std::sort(found.begin(), found.end());
    scenarios.insert(scenarios.end(), found.begin(), found.end());
  }
  return scenarios;
}

std::string SuiteSummary::line() const {
  return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed, " + std::to_string(skipped) +
         " skipped";
}

SuiteSummary run_suite(const SuiteSettings& settings, std::span<SupervisionHook* const> hooks,
                       const std::function<void(const ScenarioResult&)>& on_result) {
  std::vector<std::pair<std::string, ScenarioHeader>> scenarios;
  for (const std::string& scenario : discover_scenarios(settings.roots)) {
    if (settings.filter && scenario.find(*settings.filter) == std::string::npos) continue;
    scenarios.emplace_back(scenario, read_scenario_header(scenario));
  }

  const auto started = std::chrono::steady_clock::now();
  SuiteSummary summary;
  std::vector<ScenarioResult> results;
  for (const auto& [scenario, header] : scenarios) {
    results.push_back(run_scenario(scenario, header, settings.run, hooks));
    const ScenarioResult& result = results.back();
    switch (result.status()) {
      case ResultStatus::Passed: ++summary.passed; break;
      case ResultStatus::Failed: ++summary.failed; break;
      case ResultStatus::Skipped: ++summary.skipped; break;
      case ResultStatus::HarnessError:
        ++summary.failed;
        ++summary.harness_errors;
        break;
      case ResultStatus::Interrupted:
        ++summary.failed;
        summary.interrupted = true;
        break;
    }
    on_result(result);
    if (summary.interrupted) break;
  }
  const std::chrono::duration<double> total = std::chrono::steady_clock::now() - started;
  if (settings.junit_path) write_file(*settings.junit_path, junit_xml(results, total.count()));
  if (settings.json_path) write_file(*settings.json_path, suite_results_json(results, settings.run, total.count()));
  return summary;
}

}  // namespace gilsan
