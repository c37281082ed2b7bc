#include "harness/runner/suite.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "harness/scenario/conformance_vocabulary.h"
#include "harness/scenario/sanitizer_request.h"

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

}  // namespace

void count_result(ResultStatus status, SuiteSummary& summary) {
  switch (status) {
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
}

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

unsigned suite_jobs(const SuiteSettings& settings) {
  if (settings.jobs != 0) return settings.jobs;
  const bool real = settings.run.driver ? settings.run.driver->kind == "real" : settings.run.driver_request == "real";
  return real ? 1 : std::max(1u, std::thread::hardware_concurrency());
}

std::vector<SuiteItem> suite_items(const SuiteSettings& settings) {
  std::vector<std::string> implementations = settings.implementations;
  if (implementations.empty())
    for (std::string_view name : kBuiltinImplementations) implementations.emplace_back(name);
  std::vector<SuiteItem> items;
  for (const std::string& scenario : discover_scenarios(settings.roots)) {
    if (settings.filter && scenario.find(*settings.filter) == std::string::npos) continue;
    const ScenarioHeader header = read_scenario_header(scenario);
    if (settings.run.sanitize) check_scenario_suppressions(scenario, header);
    if (!header.is_conformance()) {
      items.push_back({scenario, header, std::nullopt});
      continue;
    }
    for (const std::string& implementation : implementations) {
      if (header.allows_implementation(implementation)) items.push_back({scenario, header, implementation});
    }
  }
  std::vector<SuiteItem> shard;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i % settings.shard_count == settings.shard_index - 1) shard.push_back(std::move(items[i]));
  }
  return shard;
}

std::string nothing_selected(const SuiteSettings& settings) {
  std::string roots;
  for (const std::string& root : settings.roots) roots += (roots.empty() ? "" : ", ") + root;
  const std::vector<std::string> scenarios = discover_scenarios(settings.roots);
  const std::string all = std::to_string(scenarios.size()) + (scenarios.size() == 1 ? " scenario" : " scenarios");
  if (scenarios.empty()) return "no scenario (*.py) under " + roots;
  std::size_t kept = scenarios.size();
  if (settings.filter) {
    kept = static_cast<std::size_t>(std::count_if(scenarios.begin(), scenarios.end(), [&](const std::string& scenario) {
      return scenario.find(*settings.filter) != std::string::npos;
    }));
    if (kept == 0) return "--filter '" + *settings.filter + "' matches none of the " + all + " under " + roots;
  }
  if (settings.shard_count > 1)
    return "shard " + std::to_string(settings.shard_index) + "/" + std::to_string(settings.shard_count) +
           " of the runs of " + roots + " is empty";
  std::string implementations;
  for (const std::string& name : settings.implementations) implementations += (implementations.empty() ? "" : ",") + name;
  return "none of the " + std::to_string(kept) + " selected scenarios under " + roots +
         " is written for --impl " + implementations;
}

SuiteSummary run_suite(const SuiteSettings& settings, const std::vector<SuiteItem>& items,
                       std::span<SupervisionHook* const> hooks, const std::function<void(ScenarioResult&)>& on_result,
                       const std::function<void(const SuiteItem&)>& on_start) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::optional<ScenarioResult>> results(items.size());
  SuiteSummary summary;
  std::mutex mutex;  // guards summary, the results and the callbacks
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    for (std::size_t index = next++; index < items.size() && !stop; index = next++) {
      const SuiteItem& item = items[index];
      if (on_start) {
        std::lock_guard lock(mutex);
        on_start(item);
      }
      RunSettings run = settings.run;
      run.implementation = item.implementation;
      ScenarioResult result = run_scenario(item.scenario, item.header, run, hooks);
      std::lock_guard lock(mutex);
      count_result(result.status(), summary);
      if (summary.interrupted) stop = true;
      on_result(result);
      results[index] = std::move(result);
    }
  };
  const unsigned jobs = std::max(1u, std::min<unsigned>(suite_jobs(settings), static_cast<unsigned>(items.size())));
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < jobs; ++i) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();

  std::vector<ScenarioResult> ordered;
  for (auto& result : results) {
    if (result) ordered.push_back(std::move(*result));
  }
  const std::chrono::duration<double> total = std::chrono::steady_clock::now() - started;
  summary.seconds = total.count();
  summary.results = std::move(ordered);
  return summary;
}

}  // namespace gilsan
