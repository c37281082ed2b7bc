// Stacks on demand (SanitizerConfig::capture_stack): captured only for a new edge or a new report,
// never again for an edge or report already seen, and named by symbolize_stack before the sinks.
#include <gtest/gtest.h>

#include <map>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

// A capture that counts its calls per thread and answers with a frame naming the thread and the
// capture's ordinal, so that a test can tell which capture a kept stack came from.
struct CountingCapture {
  std::map<ThreadId, int> calls;
  int total = 0;
  Stack capture(ThreadId thread) {
    ++calls[thread];
    ++total;
    return {"raw capture " + std::to_string(total) + " of thread " + std::to_string(thread)};
  }
};

struct CapturingHarness {
  explicit CapturingHarness(bool symbolize = false)
      : sink(std::make_shared<RecordingSink>()),
        sanitizer([&] {
          SanitizerConfig config{Options(), measured_driver(), {}, {sink}, {}};
          config.capture_stack = [this](ThreadId thread) { return counting.capture(thread); };
          if (symbolize) {
            config.symbolize_stack = [this](Stack& stack) {
              ++symbolized;
              for (std::string& frame : stack) frame = "named " + frame;
            };
          }
          return config;
        }()) {}

  HostFunction python_callback() const {
    return Harness::host_function(HostFunctionKind::python, kStream1, "scenario.py:3 on_done");
  }
  // The callback thread runs a Python host function of kStream1 (callback thread -> GIL edges).
  void run_python_callback() {
    sanitizer.host_function_begin({.thread = kCallback, .host_function = python_callback(), .stack = {}});
    sanitizer.host_function_end(kCallback);
  }
  // The main thread synchronizes kStream1 with the GIL held (GIL -> completion edge).
  void gil_held_sync(Stack stack = {}) {
    sanitizer.driver_call_enter({.thread = kMain,
                                 .entry_point = "cuStreamSynchronize",
                                 .context = kContext,
                                 .stream = kStream1,
                                 .holds_gil = true,
                                 .waits = {.streams = {kStream1}},
                                 .stack = std::move(stack)});
    sanitizer.driver_call_exit({.thread = kMain, .entry_point = "cuStreamSynchronize", .result = 0});
  }

  CountingCapture counting;
  int symbolized = 0;
  std::shared_ptr<RecordingSink> sink;
  Sanitizer sanitizer;
};

TEST(StackCapture, RepeatedEdgesAndReportsCaptureNothingMore) {
  CapturingHarness h;
  h.run_python_callback();
  const int after_first_callback = h.counting.calls[kCallback];
  EXPECT_GT(after_first_callback, 0);  // its new edges were captured
  for (int i = 0; i < 5; ++i) h.run_python_callback();
  EXPECT_EQ(after_first_callback, h.counting.calls[kCallback]);  // same edges: no capture

  h.gil_held_sync();
  const int after_first_sync = h.counting.calls[kMain];
  // One capture per new thing the sync explains: its new edge and its new reports.
  EXPECT_GT(after_first_sync, 0);
  const auto reports = h.sanitizer.reports();
  ASSERT_FALSE(reports.empty());
  for (int i = 0; i < 5; ++i) h.gil_held_sync();
  EXPECT_EQ(after_first_sync, h.counting.calls[kMain]);
  EXPECT_EQ(reports.size(), h.sanitizer.reports().size());
}

TEST(StackCapture, TheCycleShowsTheFirstCaptureOfEachEdge) {
  CapturingHarness h;
  h.run_python_callback();
  h.gil_held_sync();
  const auto cycles = h.sanitizer.reports();
  const auto cycle = std::find_if(cycles.begin(), cycles.end(),
                                  [](const Report& r) { return r.checker == Checker::lock_order_cycle; });
  ASSERT_NE(cycle, cycles.end());
  for (const CycleEdge& edge : cycle->edges) {
    ASSERT_EQ(1u, edge.evidence.stack.size());
    EXPECT_NE(std::string::npos,
              edge.evidence.stack[0].find("of thread " + std::to_string(edge.evidence.thread.id)))
        << edge.evidence.stack[0];
  }
  const auto blocking = std::find_if(cycles.begin(), cycles.end(), [](const Report& r) {
    return r.checker == Checker::gil_held_blocking_call;
  });
  ASSERT_NE(blocking, cycles.end());
  ASSERT_EQ(1u, blocking->stack.size());
  EXPECT_NE(std::string::npos, blocking->stack[0].find("of thread " + std::to_string(kMain)));
}

TEST(StackCapture, AnEventsOwnStackWinsAndIsNotCapturedAgain) {
  CapturingHarness h;
  h.gil_held_sync({"given frame"});
  EXPECT_EQ(0, h.counting.calls[kMain]);
  const auto reports = h.sanitizer.reports();
  ASSERT_EQ(1u, reports.size());
  EXPECT_EQ(Stack{"given frame"}, reports[0].stack);
}

TEST(StackCapture, NewReportsAreSymbolizedOnceBeforeTheSinks) {
  CapturingHarness h(/*symbolize=*/true);
  h.run_python_callback();
  EXPECT_EQ(0, h.symbolized);  // edges alone make no report: nothing to name yet
  h.gil_held_sync();
  EXPECT_GT(h.symbolized, 0);
  const int named = h.symbolized;
  for (const Report& report : h.sink->reports()) {
    for (const CycleEdge& edge : report.edges) EXPECT_EQ(0u, edge.evidence.stack[0].rfind("named raw", 0));
    if (!report.stack.empty()) {
      EXPECT_EQ(0u, report.stack[0].rfind("named raw", 0));
    }
  }
  h.gil_held_sync();
  EXPECT_EQ(named, h.symbolized);  // nothing new, nothing named
}

// The stack kept per Python launch (host-function-lost-at-exit's "enqueued at") comes from
// capture_enqueue_stack when it answers, shared by the runs it answers alike for; from capture_stack
// when it does not.
TEST(StackCapture, EnqueueStacksComeFromTheSharedCaptureWhenItAnswers) {
  auto sink = std::make_shared<RecordingSink>();
  CountingCapture counting;
  int enqueue_captures = 0;
  const auto loop_stack = std::make_shared<const Stack>(Stack{"app.py:12 <module>"});
  SanitizerConfig config{Options(), measured_driver(), {}, {sink}, {}};
  config.capture_stack = [&](ThreadId thread) { return counting.capture(thread); };
  config.capture_enqueue_stack = [&](ThreadId thread) -> std::shared_ptr<const Stack> {
    ++enqueue_captures;
    return thread == kMain ? loop_stack : nullptr;
  };
  Sanitizer sanitizer(std::move(config));
  auto enqueue = [&](ThreadId thread, std::uint64_t run_key) {
    HostFunction run = Harness::host_function(HostFunctionKind::python, kStream1, "trampoline");
    run.run_key = run_key;
    sanitizer.host_function_enqueued({thread, run, {}});
  };
  enqueue(kMain, 1);
  enqueue(kMain, 2);
  enqueue(kWorker, 3);  // its capture_enqueue_stack answers nothing
  sanitizer.interpreter_finished();
  std::vector<Report> lost;
  for (const Report& report : sanitizer.reports()) {
    if (report.checker == Checker::host_function_lost_at_exit) lost.push_back(report);
  }
  ASSERT_EQ(3u, lost.size());
  EXPECT_EQ(*loop_stack, lost[0].stack);
  EXPECT_EQ(*loop_stack, lost[1].stack);
  EXPECT_EQ(Stack{"raw capture 1 of thread " + std::to_string(kWorker)}, lost[2].stack);
  EXPECT_EQ(3, enqueue_captures);
  EXPECT_EQ(0, counting.calls[kMain]);
  EXPECT_EQ(1, counting.calls[kWorker]);
}

TEST(StackCapture, WithoutACaptureStacksStayEmpty) {
  Harness h;
  h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "scenario.py:3 on_done"));
  h.sync_stream(kMain, kStream1, true);
  const auto cycles = h.cycles();
  ASSERT_FALSE(cycles.empty());
  for (const CycleEdge& edge : cycles[0].edges) EXPECT_TRUE(edge.evidence.stack.empty());
}

}  // namespace
}  // namespace gilsan::checkers::testing
