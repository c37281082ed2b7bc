// The conformance report as Markdown (gilsan suite/merge --markdown FILE; docs/conformance.md is one):
// where it ran (GPU, driver, Python, each implementation's packages), the matrix of scenarios by
// implementation, what each implementation gets wrong with the excerpt that explains it, and why runs
// were skipped. Made from results alone, so a merge of shards' JSON gives the same document.
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The same catalogue on another driver, or another version of the same driver, to say where the two
// differ (gilsan merge --compare).
struct ComparedRun {
  std::vector<ScenarioResult> results;
  std::string driver;
};

// `driver` is the kind the runs used (real, sim); `command` the command line that made the results,
// shown so that a reader can run it again. With `compared`, a last section lists the runs whose outcome
// differs between the two sides (runs skipped on either side are not compared); where both are of
// one kind, its heading and columns name each side's driver version ("real 580.159.04"), or its gilsan,
// or, where driver and gilsan are the same, the implementations' packages only one side ran
// ("cuda-core 1.2.0" against "cuda-core 1.2.2").
std::string conformance_markdown(const std::vector<ScenarioResult>& results, const std::string& driver,
                                 const std::string& command, const ComparedRun* compared = nullptr);

}  // namespace gilsan
