// `gilsan suite`: every scenario under some folders, each in its own child, one line each, a
// closing "N passed, N failed, N skipped" line, and optionally a JUnit file.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// Every *.py file under each root (recursively; a root may also be one file), sorted, except files
// whose name starts with '_' (helpers a scenario imports) and anything under __pycache__. Paths are
// shown relative to the working folder when they lie below it. Throws ScenarioInputError for a root
// that does not exist.
std::vector<std::string> discover_scenarios(const std::vector<std::string>& roots);

struct SuiteSettings {
  std::vector<std::string> roots;
  std::optional<std::string> filter;       // keep scenarios whose path contains this text
  std::optional<std::string> junit_path;
  std::optional<std::string> json_path;  // --json: the results, schema gilsan-suite-results/1
  RunSettings run;
};

struct SuiteSummary {
  int passed = 0;
  int failed = 0;  // includes harness errors
  int skipped = 0;
  int harness_errors = 0;
  bool interrupted = false;

  // Exactly "N passed, N failed, N skipped".
  std::string line() const;
};

// Reads every header first (a malformed one stops the suite before anything runs: ScenarioInputError),
// then runs the scenarios in order and calls `on_result` after each. Stops after an interrupted run.
SuiteSummary run_suite(const SuiteSettings& settings, std::span<SupervisionHook* const> hooks,
                       const std::function<void(const ScenarioResult&)>& on_result);

}  // namespace gilsan
