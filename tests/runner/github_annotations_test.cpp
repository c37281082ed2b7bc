// GitHub Actions annotations: one ::error per failed or harness-error run, escaped as the
// workflow-command syntax requires, nothing for runs that met their expectation or were skipped.
#include "harness/reports/github_annotations.h"

#include <gtest/gtest.h>

namespace gilsan {
namespace {

ScenarioResult result_of(const std::string& scenario, Outcome expect, Outcome outcome, bool matched) {
  ScenarioResult result;
  result.scenario = scenario;
  result.header.expect = std::move(expect);
  result.outcome = std::move(outcome);
  result.matched = matched;
  return result;
}

TEST(GithubAnnotations, EscapesWhatTheSyntaxReserves) {
  EXPECT_EQ(escape_annotation_message("50% done\r\nnext: a, b"), "50%25 done%0D%0Anext: a, b");
  EXPECT_EQ(escape_annotation_property("50% done\nnext: a, b"), "50%25 done%0Anext%3A a%2C b");
}

TEST(GithubAnnotations, OneErrorPerFailureOnItsFile) {
  std::vector<ScenarioResult> results;
  results.push_back(result_of("scenarios/a.py", {OutcomeKind::Pass, ""}, {OutcomeKind::Pass, ""}, true));
  results.push_back(result_of("scenarios/b.py", {OutcomeKind::Pass, ""}, {OutcomeKind::Exception, "KeyError"}, false));
  results.push_back(result_of("scenarios/c.py", {OutcomeKind::Pass, ""}, {OutcomeKind::Skipped, "no GPU"}, false));
  ScenarioResult with_implementation =
      result_of("scenarios/d.py", {OutcomeKind::Deadlock, "gil-driver-inversion"}, {OutcomeKind::Pass, ""}, false);
  with_implementation.implementation = "cupy";
  results.push_back(with_implementation);
  EXPECT_EQ(github_annotations(results),
            "::error file=scenarios/b.py,line=1,title=gilsan%3A expected pass%2C got exception%3AKeyError"
            "::scenarios/b.py: expected pass, got exception:KeyError\n"
            "::error file=scenarios/d.py,line=1,title=gilsan%3A expected deadlock%3Agil-driver-inversion%2C got pass"
            "::scenarios/d.py [cupy]: expected deadlock:gil-driver-inversion, got pass\n");
  EXPECT_EQ(github_annotations({results[0], results[2]}), "");
}

}  // namespace
}  // namespace gilsan
