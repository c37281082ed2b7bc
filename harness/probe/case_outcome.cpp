#include "harness/probe/case_outcome.h"

namespace gilsan::probe {

std::string setup_problem(const CaseResult& result) {
  const CaseLine* failed = result.find(key::kSetupFailed);
  if (failed == nullptr) return {};
  // "setup-failed CODE_NAME STEP...": the step is free text, so it comes last.
  std::string step;
  for (std::size_t i = 1; i < failed->values.size(); ++i) step += (step.empty() ? "" : " ") + failed->values[i];
  return "setup failed: " + step + " (" + failed->value(0) + ")";
}

std::string unfinished_case_problem(const CaseResult& result) {
  std::string problem = "the case " + result.how_it_ended() + " before reporting its measurement";
  std::string output = result.output;
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  if (!output.empty()) {
    std::size_t start = output.rfind('\n');
    problem += "; its last output: " + output.substr(start == std::string::npos ? 0 : start + 1);
  }
  if (result.group_left_behind) problem += "; a process of its group could not be reaped";
  return problem;
}

}  // namespace gilsan::probe
