// `gilsan merge RESULTS.json...`: the shards of one suite (gilsan suite --shard i/n --json F, run on
// several machines of a CI matrix) joined into one set of results, matrix and JUnit file. gilsan has no
// scheduler of its own: the CI spreads the shards, this puts them back together.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/reports/conformance_markdown.h"
#include "harness/runner/scenario_run.h"

namespace gilsan {

struct MergeCommand {
  std::vector<std::string> inputs;  // gilsan-suite-results/1 documents
  std::optional<std::string> json_path;
  std::optional<std::string> junit_path;
  std::optional<std::string> sarif_path;
  std::optional<std::string> sarif_root;  // --sarif-root (sarif_report.h)
  std::optional<std::string> markdown_path;
  std::vector<std::string> compare_paths;  // --compare: the same catalogue on another driver or driver version (Markdown)
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
// an error (the shards overlap), and so are inputs of two kinds of driver or two driver versions (one
// suite at a time). A document may declare runs void in a "void" object
// {"conformance/x.py [cupy]": "why"}: those come back skipped, their reason naming the outcome they had. Throws std::runtime_error with one line naming the file and what is
// wrong with it.
std::vector<ScenarioResult> read_suite_results(const std::vector<std::string>& paths, RunSettings& settings);

// The driver version in a run's platform: what follows ", driver " ("NVIDIA H200, CUDA driver API 13.0,
// driver 580.159.04; Python 3.12.3" gives "580.159.04"); "" when it names none (the simulated driver has
// no version, and a machine without NVML does not tell it).
std::string driver_version_in(std::string_view platform);
// The driver version the first of `results` that names one reports; "".
std::string reported_driver_version(const std::vector<ScenarioResult>& results);
// The gilsan version the first of `results` that names one was run by; "" (results of gilsans before
// the results file said it).
std::string reported_gilsan_version(const std::vector<ScenarioResult>& results);

// The packages (name and version, "cuda-core 1.2.0") that the implementations of `results` reported
// (ScenarioReport::implementation_version, e.g. "cuda-core 1.2.0, cuda-bindings 13.3.1"), sorted, each once.
std::vector<std::string> reported_packages(const std::vector<ScenarioResult>& results);
// Those of `results` that `other` did not report: what tells a run of the pinned peers from one of their
// newest releases, e.g. {"cuda-bindings 13.3.1", "cuda-core 1.2.0"}.
std::vector<std::string> packages_only_in(const std::vector<ScenarioResult>& results,
                                          const std::vector<ScenarioResult>& other);

// gilsan merge --compare: whether `compared` may be compared with `results` of the `driver` kind. It
// must be of another kind of driver, of the same kind with another driver version (a driver update),
// of the same driver run by another gilsan (a gilsan update), or of the same driver and gilsan with
// other versions of the implementations (a peer's new release): a run that cannot be told apart from
// the other would make a table of nothing. Throws
// std::runtime_error with one line saying what "--compare " lacks ("needs results of another driver
// or driver version: both are of the real driver 580.159.04").
void check_comparable(const ComparedRun& compared, const std::string& driver, const std::vector<ScenarioResult>& results);

}  // namespace gilsan
