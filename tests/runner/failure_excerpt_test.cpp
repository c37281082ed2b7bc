// Failure excerpts carry the whole cycle and the verdict, no stacks (harness/reports/failure_excerpt.h).
#include "harness/reports/failure_excerpt.h"

#include <gtest/gtest.h>

namespace gilsan {
namespace {

constexpr const char* kHangReport =
    "gilsan: hang in process 7: gil-driver-inversion\n"
    "  gil-driver-inversion: no progress for 520 ms, a cycle of 4 waits\n"
    "  quiet period 500 ms; snapshot took 3 ms\n"
    "  cycle:\n"
    "    1. thread 7 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x1)\n"
    "    2. stream 0x1 waits for host function #1 on thread 8 (callback thread)\n"
    "    3. thread 8 (callback thread) waits for the GIL\n"
    "    4. the GIL is held by thread 7 (main)\n"
    "  why:\n"
    "    - a cycle of 4 waits\n"
    "  inferred (not written on the board):\n"
    "    - something inferred\n"
    "threads:\n"
    "  thread 7 (main) 'exe', state S\n"
    "    native stack:\n"
    "      #0  0x1 futex\n";

TEST(FailureExcerpt, AHangKeepsEveryStepOfItsCycleAndNoStack) {
  const std::string excerpt = watchdog_excerpt(kHangReport);
  EXPECT_EQ(excerpt,
            "gilsan: hang in process 7: gil-driver-inversion\n"
            "  gil-driver-inversion: no progress for 520 ms, a cycle of 4 waits\n"
            "  cycle:\n"
            "    1. thread 7 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x1)\n"
            "    2. stream 0x1 waits for host function #1 on thread 8 (callback thread)\n"
            "    3. thread 8 (callback thread) waits for the GIL\n"
            "    4. the GIL is held by thread 7 (main)\n"
            "  why:\n"
            "    - a cycle of 4 waits\n");
}

TEST(FailureExcerpt, SanitizerReportsKeepTheirStepsAndExplanationsNotTheirStacks) {
  const std::string text =
      "gilsan: lock-order-cycle (gil-driver-inversion): potential deadlock: the GIL -> stream -> the GIL\n"
      "  1. thread 1 (main) holds the GIL and waits in cuStreamSynchronize.\n"
      "  2. completion of the stream waits for a host function, which waits for the GIL.\n"
      "  stack of 1 (thread 1):\n"
      "    #0 x.py:14 <module>\n"
      "  stack of 2 (thread 2):\n"
      "    #0 gilsan::ScenarioStacks::capture\n"
      "gilsan: gil-held-blocking-call: cuStreamSynchronize can block with the GIL held\n"
      "  on thread 1 (main)\n"
      "  stack:\n"
      "    #0 x.py:14 <module>\n"
      "gilsan: 2 reports\n";
  EXPECT_EQ(sanitizer_excerpt(text),
            "gilsan: lock-order-cycle (gil-driver-inversion): potential deadlock: the GIL -> stream -> the GIL\n"
            "  1. thread 1 (main) holds the GIL and waits in cuStreamSynchronize.\n"
            "  2. completion of the stream waits for a host function, which waits for the GIL.\n"
            "gilsan: gil-held-blocking-call: cuStreamSynchronize can block with the GIL held\n"
            "  on thread 1 (main)\n");
}

TEST(FailureExcerpt, ManySanitizerReportsSayHowManyMoreThereAre) {
  std::string text;
  for (int i = 1; i <= kMostSanitizerReports + 2; ++i) text += "gilsan: checker-" + std::to_string(i) + ": x\n  line\n";
  text += "gilsan: " + std::to_string(kMostSanitizerReports + 2) + " reports\n";
  const std::string excerpt = sanitizer_excerpt(text);
  EXPECT_NE(excerpt.find("checker-" + std::to_string(kMostSanitizerReports) + ":"), std::string::npos);
  EXPECT_EQ(excerpt.find("checker-" + std::to_string(kMostSanitizerReports + 1) + ":"), std::string::npos);
  EXPECT_NE(excerpt.find("(2 more sanitizer reports in the full report)"), std::string::npos);
}

TEST(FailureExcerpt, ATimeoutWithItsSnapshotIsExcerptedLikeAHang) {
  ScenarioResult result;
  result.scenario = "x.py";
  result.outcome = Outcome{OutcomeKind::Timeout, ""};
  result.watchdog = WatchdogFindings{};
  result.watchdog->kind = watchdog::DetectionKind::Timeout;
  result.watchdog->text =
      "gilsan: timeout in process 7: gil-driver-inversion\n"
      "  timed out; at the timeout, gil-driver-inversion: no progress for 9 s, a cycle of 2 waits\n"
      "  cycle:\n"
      "    1. thread 7 (main) holds the GIL and waits\n"
      "    2. the GIL is held by thread 7 (main)\n";
  EXPECT_EQ(failure_excerpt(result), result.watchdog->text);
}

}  // namespace
}  // namespace gilsan
