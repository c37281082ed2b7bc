// The suite's status line cut to the terminal's width (harness/command/suite_progress.h), and the
// skipped runs folded by reason (suite_matrix.h).
#include <gtest/gtest.h>

#include "harness/command/suite_progress.h"
#include "harness/reports/suite_matrix.h"

namespace gilsan {
namespace {

TEST(FitToColumns, ALineThatFitsIsKept) {
  EXPECT_EQ(fit_to_columns("[1/3] running: a.py", 19), "[1/3] running: a.py");
}

TEST(FitToColumns, ALongerLineIsCutWithAnEllipsisToExactlyTheWidth) {
  EXPECT_EQ(fit_to_columns("[1/3] running: a.py b.py", 12), "[1/3] run...");
  EXPECT_EQ(fit_to_columns("abcdef", 3), "...");
  EXPECT_EQ(fit_to_columns("abcdef", 2), "..");
}

TEST(FitToColumns, AMultiByteCharacterCountsAsOneAndIsNeverSplit) {
  // "é" is two bytes: six characters fit in six columns, and a cut keeps whole characters.
  EXPECT_EQ(fit_to_columns("éééééé", 6), "éééééé");
  EXPECT_EQ(fit_to_columns("éééééé", 5), "éé...");
}

ScenarioResult skipped(const std::string& scenario, const std::string& reason) {
  ScenarioResult result;
  result.scenario = scenario;
  result.outcome = Outcome{OutcomeKind::Skipped, reason};
  result.matched = true;
  return result;
}

TEST(SkipSummary, OneLinePerReasonWithItsCountMostFrequentFirst) {
  ScenarioResult passed;
  passed.scenario = "c.py";
  passed.outcome = Outcome{OutcomeKind::Pass, ""};
  passed.matched = true;
  const std::vector<ScenarioResult> results = {skipped("a.py", "needs two-devices"), skipped("a.py", "cupy is not installed"),
                                               passed, skipped("b.py", "cupy is not installed")};
  EXPECT_EQ(skip_summary(results), "SKIP 2 runs: cupy is not installed\nSKIP 1 run: needs two-devices\n");
  EXPECT_EQ(skip_summary({passed}), "");
}

}  // namespace
}  // namespace gilsan
