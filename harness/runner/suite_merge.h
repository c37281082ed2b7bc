// `gilsan merge RESULTS.json...`: the shards of one suite (gilsan suite --shard i/n --json F, run on
// several machines of a CI matrix) joined into one set of results, matrix and JUnit file. gilsan has no
// scheduler of its own: the CI spreads the shards, this puts them back together.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

struct MergeCommand {
  std::vector<std::string> inputs;  // gilsan-suite-results/1 documents
  std::optional<std::string> json_path;
  std::optional<std::string> junit_path;
  std::optional<std::string> sarif_path;
  std::optional<std::string> markdown_path;
  std::vector<std::string> compare_paths;  // --compare: the same catalogue on the other driver (Markdown)
  std::string command_line;
};

struct SuiteResultsDocument {
  std::string driver;  // the driver the suite ran on ("sim", "real")
  std::vector<ScenarioResult> results;
};

// One gilsan-suite-results/1 document; `source` names it in errors. Throws std::runtime_error with one
// line, "SOURCE: what is wrong".
SuiteResultsDocument parse_suite_results(std::string_view text, const std::string& source);

// Every result of every input, in the inputs' order; a (scenario, implementation) pair found twice is
// an error (the shards overlap). A document may declare runs void in a "void" object
// {"conformance/x.py [cupy]": "why"}: those come back skipped, their reason naming the outcome they had. Throws std::runtime_error with one line naming the file and what is
// wrong with it.
std::vector<ScenarioResult> read_suite_results(const std::vector<std::string>& paths, RunSettings& settings);

}  // namespace gilsan
