// `gilsan suite`'s runs: every scenario under some folders -- a conformance scenario once per
// implementation -- each in its own child, several at once (--jobs). What is shown and written of them
// is harness/command's and harness/reports'.
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
  std::vector<std::string> implementations;  // --impl; empty: every built-in one (conformance_vocabulary.h)
  unsigned jobs = 0;                         // --jobs: runs at once; 0: the default for the driver (suite_jobs)
  unsigned shard_index = 1, shard_count = 1;  // --shard i/n: every n-th run, starting at the i-th
  // --allow-empty: a selection of no run passes; else it is a usage error (a mistyped path or filter
  // must not keep a CI job green).
  bool allow_empty = false;
  RunSettings run;
};

// One run of a suite: a scenario, with an implementation when it is a conformance scenario.
struct SuiteItem {
  std::string scenario;
  ScenarioHeader header;
  std::optional<std::string> implementation;
};

// How many runs go at once: --jobs, else as many as CPUs on the simulated driver and one on the real
// driver, where runs share the GPU and time-slice each other's device work.
unsigned suite_jobs(const SuiteSettings& settings);

// What the suite runs, in order: every scenario (headers read, a malformed one throws
// ScenarioInputError), a conformance scenario once per selected implementation it is written for,
// then the settings' shard of that list.
std::vector<SuiteItem> suite_items(const SuiteSettings& settings);

// Why suite_items(settings) is empty, in words naming the folders and the option that emptied it:
// "no scenario under scenarios/typo", "--filter 'cupyy' matches none of the 63 scenarios under scenarios".
std::string nothing_selected(const SuiteSettings& settings);

struct SuiteSummary {
  int passed = 0;
  int failed = 0;  // includes harness errors
  int skipped = 0;
  int harness_errors = 0;
  bool interrupted = false;
  std::vector<ScenarioResult> results;  // in the items' order
  double seconds = 0;                    // the suite's wall time

  // Exactly "N passed, N failed, N skipped".
  std::string line() const;
};

// Adds a result of `status` to the summary's counts.
void count_result(ResultStatus status, SuiteSummary& summary);

// Runs `items` (suite_items: every header was read first, so a malformed one stopped the suite before
// anything ran), `settings.jobs` at once, and calls `on_result` after each (one at a time, in the
// order they end; it may trim what the result keeps, as the suite keeps every result to the end);
// `on_start` before each. Starts nothing new after an interrupted run. The results are in the items'
// order; what is written of them (JUnit, SARIF, JSON, Markdown) is the command's (harness/command).
SuiteSummary run_suite(const SuiteSettings& settings, const std::vector<SuiteItem>& items,
                       std::span<SupervisionHook* const> hooks, const std::function<void(ScenarioResult&)>& on_result,
                       const std::function<void(const SuiteItem&)>& on_start = {});

}  // namespace gilsan
