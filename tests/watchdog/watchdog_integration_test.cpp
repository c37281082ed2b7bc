// The watchdog against real processes: the deadlocking test child and a plain Python process.
// Paths of the helpers come from the build (compile definitions).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/watchdog/child_runner.h"

namespace gilsan::watchdog::testing {
namespace {

constexpr std::chrono::milliseconds kQuiet{300};

// ThreadSanitizer defers signals to a thread until it leaves the intercepted call, and its mutex
// lock never returns in a deadlock: such threads cannot answer the stack sampler.
const bool kThreadSanitizer = std::string(GILSAN_TEST_SANITIZE) == "thread";

// GILSAN_TEST_SHOW_REPORTS=1 prints every report, to read what a person would see.
ChildRun supervise(const ChildRunOptions& options) {
  ChildRun run = run_under_watchdog(options);
  const char* show = std::getenv("GILSAN_TEST_SHOW_REPORTS");
  if (show != nullptr && std::string(show) == "1" && run.report) std::cout << render_text(*run.report) << std::endl;
  return run;
}

ChildRunOptions child(std::vector<std::string> arguments) {
  ChildRunOptions options;
  options.argv = {GILSAN_TEST_DEADLOCK_CHILD};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.watchdog.quiet = kQuiet;
  return options;
}

const ThreadSnapshot* thread_with_frame(const Snapshot& snapshot, const std::string& function) {
  for (const ThreadSnapshot& thread : snapshot.threads) {
    for (const NativeFrame& frame : thread.native_stack) {
      if (frame.symbol.find(function) != std::string::npos) return &thread;
    }
  }
  return nullptr;
}

bool directory_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// Nothing of the run is left: no process of its tree, no board.
void expect_clean(const ChildRun& run) {
  EXPECT_TRUE(run.cleanup.survivors.empty());
  EXPECT_FALSE(process_exists(run.pid));
  for (pid_t pid : run.tree_before_cleanup) EXPECT_FALSE(process_exists(pid)) << "process " << pid << " survived";
  EXPECT_FALSE(directory_exists(run.board_directory)) << run.board_directory;
}

std::vector<int> cycle_threads(const HangReport& report) {
  std::vector<int> tids;
  for (const WaitEdge& edge : report.classification.cycle) {
    const WaitNode* node = report.classification.graph.node(edge.from);
    if (node->kind == NodeKind::thread) tids.push_back(node->tid);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

TEST(WatchdogIntegration, GilInversionIsDetectedNamedAndSymbolized) {
  ChildRun run = supervise(child({"gil-inversion"}));
  ASSERT_TRUE(run.detection.has_value()) << "gave up: " << run.gave_up;
  EXPECT_EQ(run.detection->kind, DetectionKind::Hang);
  // Generous: only catches a watchdog that waits far longer than its quiet period.
  EXPECT_LT(run.detection->detected_ns - run.spawned_ns, std::uint64_t{5'000'000'000} + kQuiet.count() * 1'000'000ULL);

  const HangReport& report = *run.report;
  EXPECT_EQ(report.class_name, "gil-driver-inversion");
  const ThreadSnapshot* main_thread = thread_with_frame(report.snapshot, "deadlock_child_wait_in_driver");
  const ThreadSnapshot* callback = thread_with_frame(report.snapshot, "deadlock_child_wait_for_gil");
  ASSERT_NE(main_thread, nullptr) << render_text(report);
  ASSERT_NE(callback, nullptr) << render_text(report);
  EXPECT_EQ(main_thread->tid, run.pid);
  EXPECT_EQ(cycle_threads(report), (std::vector<int>{std::min(main_thread->tid, callback->tid),
                                                     std::max(main_thread->tid, callback->tid)}));
  for (const WaitEdge& edge : report.classification.cycle) EXPECT_FALSE(edge.inferred) << edge.text;

  std::string text = render_text(report);
  EXPECT_NE(text.find("holds the GIL and waits in cuStreamSynchronize(stream 0x10)"), std::string::npos) << text;
  EXPECT_NE(text.find("host function #3 (python, test, scenario.py:14 cb)"), std::string::npos) << text;
  auto json = nlohmann::json::parse(render_json(report));
  EXPECT_EQ(json["schema"], "gilsan-hang-report/1");
  EXPECT_EQ(json["class"], "gil-driver-inversion");
  EXPECT_NE(render_dot(report).find("color=red"), std::string::npos);
  expect_clean(run);
}

TEST(WatchdogIntegration, LockInversionFromBoardLocks) {
  ChildRun run = supervise(child({"locks"}));
  ASSERT_TRUE(run.report.has_value());
  EXPECT_EQ(run.report->class_name, "user-lock-inversion") << render_text(*run.report);
  EXPECT_EQ(cycle_threads(*run.report).size(), 2u);
  for (const WaitEdge& edge : run.report->classification.cycle) EXPECT_FALSE(edge.inferred) << edge.text;
  if (!kThreadSanitizer) {
    EXPECT_NE(thread_with_frame(run.report->snapshot, "deadlock_child_lock_a_then_b"), nullptr);
    EXPECT_NE(thread_with_frame(run.report->snapshot, "deadlock_child_lock_b_then_a"), nullptr);
  }
  expect_clean(run);
}

TEST(WatchdogIntegration, SilentLockInversionIsInferredFromNativeFrames) {
  if (kThreadSanitizer) GTEST_SKIP() << "under TSan, threads blocked in a mutex cannot answer the stack sampler";
  ChildRun run = supervise(child({"silent-locks"}));
  ASSERT_TRUE(run.report.has_value());
  const HangReport& report = *run.report;
  EXPECT_EQ(report.class_name, "user-lock-inversion") << render_text(report);
  EXPECT_EQ(cycle_threads(report).size(), 2u) << render_text(report);
  bool any_inferred = std::any_of(report.classification.cycle.begin(), report.classification.cycle.end(),
                                  [](const WaitEdge& edge) { return edge.inferred; });
  EXPECT_TRUE(any_inferred);
  const ThreadSnapshot* locker = thread_with_frame(report.snapshot, "deadlock_child_lock_a_then_b");
  ASSERT_NE(locker, nullptr) << render_text(report);
  EXPECT_EQ(report.classification.facts.find(locker->tid)->native_wait.kind, NativeWait::Kind::NativeLock);
  expect_clean(run);
}

TEST(WatchdogIntegration, ConditionWaitIsAHangWithoutACycle) {
  ChildRun run = supervise(child({"condition"}));
  ASSERT_TRUE(run.report.has_value());
  EXPECT_EQ(run.report->class_name, "unknown");
  EXPECT_TRUE(run.report->classification.cycle.empty());
  EXPECT_FALSE(run.detection->blocked_tids.empty());
  expect_clean(run);
}

TEST(WatchdogIntegration, SlowDeviceWorkIsNotAHang) {
  ChildRun run = supervise(child({"slow-device", "1500"}));
  EXPECT_FALSE(run.detection.has_value()) << render_text(*run.report);
  ASSERT_TRUE(run.exit_status.has_value());
  EXPECT_TRUE(WIFEXITED(*run.exit_status));
  EXPECT_EQ(WEXITSTATUS(*run.exit_status), 0);
  expect_clean(run);
}

TEST(WatchdogIntegration, CrashIsReportedWithTheHostFunctionFrame) {
  ChildRun run = supervise(child({"crash"}));
  ASSERT_TRUE(run.detection.has_value());
  EXPECT_EQ(run.detection->kind, DetectionKind::Crash);
  const HangReport& report = *run.report;
  EXPECT_EQ(report.class_name, "crash");
  ASSERT_TRUE(report.snapshot.crash.has_value());
  EXPECT_EQ(report.snapshot.crash->signal, SIGSEGV);
  const ThreadSnapshot* crashed = report.snapshot.find_thread(report.snapshot.crash->tid);
  ASSERT_NE(crashed, nullptr);
  bool named = std::any_of(crashed->native_stack.begin(), crashed->native_stack.end(), [](const NativeFrame& frame) {
    return frame.symbol.find("deadlock_child_crash_in_host_function") != std::string::npos;
  });
  EXPECT_TRUE(named) << render_text(report);
  EXPECT_NE(report.summary.find("host function #7"), std::string::npos) << report.summary;
  ASSERT_TRUE(run.exit_status.has_value());
  if (std::string(GILSAN_TEST_SANITIZE).empty()) {
    EXPECT_TRUE(WIFSIGNALED(*run.exit_status));
    EXPECT_EQ(WTERMSIG(*run.exit_status), SIGSEGV);
  } else {
    // The sanitizer's own SEGV handler, which ours hands the signal to, reports and exits.
    EXPECT_FALSE(WIFEXITED(*run.exit_status) && WEXITSTATUS(*run.exit_status) == 0);
  }
  expect_clean(run);
}

TEST(WatchdogIntegration, ChildIgnoringSigtermAndForkingLeavesNothing) {
  ChildRun run = supervise(child({"ignore-term"}));
  ASSERT_TRUE(run.detection.has_value());
  EXPECT_GE(run.tree_before_cleanup.size(), 2u);  // the child and its grandchild at least
  expect_clean(run);
}

TEST(WatchdogIntegration, PythonStacksAndGilWaitInferredFromFrames) {
  if (std::string(GILSAN_TEST_SANITIZE).size() > 0) {
    GTEST_SKIP() << "a plain python3 cannot load the hooks library built with -fsanitize=" GILSAN_TEST_SANITIZE;
  }
  ChildRunOptions options;
  options.argv = {GILSAN_TEST_PYTHON, GILSAN_TEST_PYTHON_CHILD, GILSAN_TEST_HOOKS_LIBRARY};
  options.watchdog.quiet = kQuiet;
  options.python_stack_pipe = true;
  ChildRun run = supervise(options);
  ASSERT_TRUE(run.report.has_value());
  const HangReport& report = *run.report;
  std::string text = render_text(report);
  EXPECT_NE(report.snapshot.python_stack_text.find("python_child.py"), std::string::npos) << text;

  const ThreadSnapshot* spinner = nullptr;
  for (const ThreadSnapshot& thread : report.snapshot.threads) {
    if (!thread.python_stack) continue;
    for (const PythonFrame& frame : *thread.python_stack) {
      if (frame.function == "spin") spinner = &thread;
    }
  }
  ASSERT_NE(spinner, nullptr) << text;
  const ThreadFacts* facts = report.classification.facts.find(spinner->tid);
  EXPECT_EQ(facts->gil.state, board::GilState::Waiting) << text;
  EXPECT_TRUE(facts->gil.inferred);
  bool said_inferred = std::any_of(report.classification.inferred.begin(), report.classification.inferred.end(),
                                   [](const std::string& fact) { return fact.find("waits for the GIL") != std::string::npos; });
  EXPECT_TRUE(said_inferred) << text;
  expect_clean(run);
}

}  // namespace
}  // namespace gilsan::watchdog::testing
