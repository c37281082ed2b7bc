#include "harness/runner/outcome_rules.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>

namespace gilsan {
namespace {

SupervisedRun started_run(int wait_status = W_EXITCODE(0, 0)) {
  SupervisedRun run;
  run.wait_status = wait_status;
  run.report.python_version = "3.11.2";
  run.report.finalized = true;
  return run;
}

UnraisableRecord unraisable(std::string module, std::string type) {
  return {{std::move(module), std::move(type)}, "message", "<object>", "Exception ignored in"};
}

TEST(DeriveOutcome, CleanExitIsPass) { EXPECT_EQ(derive_outcome(started_run()), (Outcome{OutcomeKind::Pass, ""})); }

TEST(DeriveOutcome, UncaughtExceptionWinsOverItsExitStatus) {
  SupervisedRun run = started_run(W_EXITCODE(1, 0));
  run.report.exception = ExceptionRecord{{"builtins", "ValueError"}, "Traceback"};
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Exception, "ValueError"}));
  run.report.exception->type = {"__main__", "Custom"};
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Exception, "__main__.Custom"}));
}

TEST(DeriveOutcome, NonZeroExitWithoutExceptionIsExit) {
  EXPECT_EQ(derive_outcome(started_run(W_EXITCODE(3, 0))), (Outcome{OutcomeKind::Exit, "3"}));
}

TEST(DeriveOutcome, SignalIsCrashEvenWithUnraisables) {
  SupervisedRun run = started_run(W_EXITCODE(0, SIGSEGV));
  run.report.unraisables.push_back(unraisable("builtins", "RuntimeError"));
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Crash, "SIGSEGV"}));
}

TEST(DeriveOutcome, TimeoutWinsOverTheSignalThatEndedTheChild) {
  SupervisedRun run = started_run(W_EXITCODE(0, SIGTERM));
  run.timed_out = true;
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Timeout, ""}));
}

TEST(DeriveOutcome, MemoryLimitWinsOverTheSigkillThatEndedTheChild) {
  SupervisedRun run = started_run(W_EXITCODE(0, SIGKILL));
  run.memory_limit_exceeded = true;
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::MemoryLimit, ""}));
  EXPECT_EQ(derive_outcome(run).to_string(), "memory-limit");
  EXPECT_EQ(parse_expectation("memory-limit"), derive_outcome(run));
  EXPECT_EQ(outcome_from_string("memory-limit"), derive_outcome(run));
  EXPECT_THROW(parse_expectation("memory-limit:512M"), std::invalid_argument);
}

TEST(DeriveOutcome, HookVerdictWinsOverEverything) {
  SupervisedRun run = started_run(W_EXITCODE(0, SIGKILL));
  run.timed_out = true;
  run.verdict = Verdict{{OutcomeKind::Deadlock, "gil-driver-inversion"}, "cycle"};
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Deadlock, "gil-driver-inversion"}));
}

TEST(DeriveOutcome, UnraisableNamesTheFirst) {
  SupervisedRun run = started_run();
  run.report.unraisables.push_back(unraisable("builtins", "RuntimeError"));
  run.report.unraisables.push_back(unraisable("builtins", "KeyError"));
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Unraisable, "RuntimeError"}));
}

TEST(DeriveOutcome, SkipAndHarnessErrors) {
  SupervisedRun skipped = started_run();
  skipped.report.skip_reason = "needs cupy: no module named 'cupy'";
  EXPECT_EQ(derive_outcome(skipped), (Outcome{OutcomeKind::Skipped, "needs cupy: no module named 'cupy'"}));

  SupervisedRun failed = started_run(W_EXITCODE(3, 0));
  failed.report.harness_error = "cannot start Python";
  EXPECT_EQ(derive_outcome(failed), (Outcome{OutcomeKind::HarnessError, "cannot start Python"}));

  SupervisedRun silent;  // exited 0 without a single record
  EXPECT_EQ(derive_outcome(silent).kind, OutcomeKind::HarnessError);
}

TEST(OutcomeMeetsExpectation, ExceptionByBareOrQualifiedName) {
  ChildReport report;
  report.exception = ExceptionRecord{{"mypkg.errors", "Bad"}, ""};
  const Outcome actual{OutcomeKind::Exception, "mypkg.errors.Bad"};
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Exception, "Bad"}, actual, report));
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Exception, "mypkg.errors.Bad"}, actual, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Exception, "errors.Bad"}, actual, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Exception, "ValueError"}, actual, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Pass, ""}, actual, report));
}

TEST(OutcomeMeetsExpectation, UnraisableMatchesAnyOfThem) {
  ChildReport report;
  report.unraisables = {unraisable("builtins", "RuntimeError"), unraisable("builtins", "KeyError")};
  const Outcome actual{OutcomeKind::Unraisable, "RuntimeError"};
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Unraisable, "KeyError"}, actual, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Unraisable, "TypeError"}, actual, report));
}

TEST(OutcomeMeetsExpectation, OtherKindsMustBeEqual) {
  const ChildReport report;
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Crash, "SIGSEGV"}, {OutcomeKind::Crash, "SIGSEGV"}, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Crash, "SIGSEGV"}, {OutcomeKind::Crash, "SIGABRT"}, report));
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Timeout, ""}, {OutcomeKind::Timeout, ""}, report));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Deadlock, "gil-driver-inversion"},
                                         {OutcomeKind::Timeout, ""}, report));
}

TEST(DeriveOutcome, SanitizerReportNamesTheFirstChecker) {
  // 66: the sanitizer's exit-code policy, not an exit:66 of the scenario's own.
  const SupervisedRun run = started_run(W_EXITCODE(66, 0));
  EXPECT_EQ(derive_outcome(run, {"lock-order-cycle", "gil-held-blocking-call"}),
            (Outcome{OutcomeKind::Report, "lock-order-cycle"}));
  EXPECT_EQ(derive_outcome(run), (Outcome{OutcomeKind::Exit, "66"}));
}

TEST(DeriveOutcome, SanitizerReportWinsOverExceptionsAndUnraisables) {
  SupervisedRun run = started_run(W_EXITCODE(1, 0));
  run.report.exception = ExceptionRecord{{"gilsan", "CudaError"}, "Traceback"};
  run.report.unraisables.push_back(unraisable("gilsan", "CudaError"));
  EXPECT_EQ(derive_outcome(run, {"cuda-call-in-host-function"}),
            (Outcome{OutcomeKind::Report, "cuda-call-in-host-function"}));
}

TEST(DeriveOutcome, CrashAndVerdictWinOverSanitizerReports) {
  EXPECT_EQ(derive_outcome(started_run(W_EXITCODE(0, SIGSEGV)), {"lock-order-cycle"}),
            (Outcome{OutcomeKind::Crash, "SIGSEGV"}));
  SupervisedRun run = started_run(W_EXITCODE(0, SIGKILL));
  run.verdict = Verdict{{OutcomeKind::Deadlock, "gil-driver-inversion"}, "cycle"};
  EXPECT_EQ(derive_outcome(run, {"lock-order-cycle"}), (Outcome{OutcomeKind::Deadlock, "gil-driver-inversion"}));
}

TEST(DeriveOutcome, UnraisableReportRestatesTheUnraisableOutcome) {
  SupervisedRun run = started_run(W_EXITCODE(66, 0));
  run.report.unraisables.push_back(unraisable("builtins", "ValueError"));
  EXPECT_EQ(derive_outcome(run, {"unraisable-in-host-function"}), (Outcome{OutcomeKind::Unraisable, "ValueError"}));
  EXPECT_EQ(derive_outcome(run, {"unraisable-in-host-function", "cuda-call-in-host-function"}),
            (Outcome{OutcomeKind::Report, "cuda-call-in-host-function"}));
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Report, "unraisable-in-host-function"},
                                        {OutcomeKind::Unraisable, "ValueError"}, run.report,
                                        {"unraisable-in-host-function"}));
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Unraisable, "ValueError"}, {OutcomeKind::Unraisable, "ValueError"},
                                        run.report, {"unraisable-in-host-function"}));
  // Without an unraisable the runner saw (e.g. a hook that swallowed it), the report stands.
  EXPECT_EQ(derive_outcome(started_run(W_EXITCODE(66, 0)), {"unraisable-in-host-function"}),
            (Outcome{OutcomeKind::Report, "unraisable-in-host-function"}));
}

TEST(OutcomeMeetsExpectation, ReportMatchesAnyChecker) {
  const ChildReport report;
  const std::vector<std::string> checkers = {"lock-order-cycle", "gil-held-blocking-call"};
  const Outcome actual{OutcomeKind::Report, "lock-order-cycle"};
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Report, "gil-held-blocking-call"}, actual, report, checkers));
  EXPECT_TRUE(outcome_meets_expectation({OutcomeKind::Report, "lock-order-cycle"}, actual, report, checkers));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Report, "host-function-lifetime"}, actual, report, checkers));
  EXPECT_FALSE(outcome_meets_expectation({OutcomeKind::Pass, ""}, actual, report, checkers));
}

}  // namespace
}  // namespace gilsan
