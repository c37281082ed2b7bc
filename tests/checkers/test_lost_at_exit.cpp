// host-function-lost-at-exit: the driver's record of each run (run keys, from the simulated or the
// forwarding driver) against what began, joined with a launcher's own description of the same host
// function; and the launcher's and the driver's enqueue of one launch counted once.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

constexpr std::uint64_t kPayload = 0x7000;  // the userData a launcher gave the driver

// A run as the driver reports it: the trampoline's code, with the driver's run key.
HostFunction driver_run(std::uint64_t run_key, HostFunctionKind kind, std::uint64_t user_data = 0,
                        Handle stream = kStream1) {
  HostFunction run = Harness::host_function(kind, stream, "trampoline+0x10");
  run.implementation = kind == HostFunctionKind::python ? "cupy" : "libapp.so";
  run.run_key = run_key;
  run.user_data = user_data;
  return run;
}

// What the gilsan module says about the same host function: its payload id and a Python callable.
HostFunction module_description(std::uint64_t id) {
  HostFunction described = Harness::host_function(HostFunctionKind::python, kStream1, "s.py:3 on_done", kContext, id);
  described.user_data = kPayload;
  return described;
}

void enqueue(Harness& h, const HostFunction& host_function, Stack stack = {}) {
  h.sanitizer.host_function_enqueued({kMain, host_function, std::move(stack)});
}

TEST(HostFunctionLostAtExit, APythonHostFunctionStillWaitingWhenTheInterpreterFinishesIsLost) {
  Harness h;
  enqueue(h, driver_run(1, HostFunctionKind::python), {"app.py:12 <module>"});
  h.sanitizer.interpreter_finished();
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].summary,
            "host function trampoline+0x10 (python, cupy) on stream 0x5001 was enqueued and never ran: the "
            "interpreter finished first");
  EXPECT_EQ(found[0].stack, (Stack{"app.py:12 <module>"}));
  ASSERT_TRUE(found[0].host_function);
  EXPECT_EQ(found[0].host_function->implementation, "cupy");
  EXPECT_NE(found[0].message.find("enqueued by thread 100"), std::string::npos);
  h.sanitizer.finish();
  EXPECT_EQ(h.reports_of(Checker::host_function_lost_at_exit).size(), 1u) << "reported once";
}

TEST(HostFunctionLostAtExit, ANativeHostFunctionMayStillRunAfterTheInterpreterButNotAfterTheProcess) {
  Harness h;
  enqueue(h, driver_run(1, HostFunctionKind::native));
  h.sanitizer.interpreter_finished();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lost_at_exit).empty());
  h.sanitizer.finish();
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("never ran: the process ended first"), std::string::npos);
}

TEST(HostFunctionLostAtExit, ARunThatBeganAndEndedIsNotLost) {
  Harness h;
  const HostFunction run = driver_run(1, HostFunctionKind::python);
  enqueue(h, run);
  h.begin(kCallback, run);
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.interpreter_finished();
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lost_at_exit).empty());
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), 0u);
}

// The driver tells of the enqueue after the launch returned: the callback thread may have begun first.
TEST(HostFunctionLostAtExit, ABeginThatOvertakesItsEnqueueIsNotLost) {
  Harness h;
  const HostFunction run = driver_run(1, HostFunctionKind::python);
  h.begin(kCallback, run);
  h.sanitizer.host_function_end(kCallback);
  enqueue(h, run);
  h.sanitizer.interpreter_finished();
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lost_at_exit).empty());
}

TEST(HostFunctionLostAtExit, APythonHostFunctionCutOffByTheEndOfTheInterpreterIsLost) {
  Harness h;
  const HostFunction run = driver_run(1, HostFunctionKind::python);
  enqueue(h, run);
  h.begin(kCallback, run);  // CPython ends or parks the thread when it takes the GIL too late
  h.sanitizer.interpreter_finished();
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("was cut off"), std::string::npos);
}

TEST(HostFunctionLostAtExit, TheLaunchersSkipOfTheCallableIsALoss) {
  Harness h;
  enqueue(h, module_description(1));
  const HostFunction run = driver_run(9, HostFunctionKind::native, kPayload);
  enqueue(h, run);
  h.begin(kCallback, run);
  h.begin(kCallback, module_description(1));  // the module's trampoline, nested
  h.sanitizer.host_function_skipped(kCallback);
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].summary,
            "host function s.py:3 on_done (python, gilsan) on stream 0x5001 its launcher skipped its callable: the "
            "driver reached it after the interpreter began to finalize");
}

// One launch of the module is enqueued twice, by the module and by the driver: the driver's record
// takes the module's description, and the stream's pending list holds it once.
TEST(HostFunctionLostAtExit, OneLaunchSeenByTwoSourcesIsRecordedOnce) {
  Harness h;
  enqueue(h, module_description(1), {"s.py:9 <module>"});
  enqueue(h, driver_run(9, HostFunctionKind::native, kPayload));
  h.sync_stream(kMain, kStream1, /*holds_gil=*/true);
  const auto blocking = h.reports_of(Checker::gil_held_blocking_call);
  ASSERT_EQ(blocking.size(), 1u);
  EXPECT_NE(blocking[0].message.find("pending there: host function s.py:3 on_done (python, gilsan) on stream "
                                     "0x5001. A host"),
            std::string::npos)
      << blocking[0].message;
  h.sanitizer.interpreter_finished();
  const auto lost = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_NE(lost[0].summary.find("s.py:3 on_done (python, gilsan)"), std::string::npos);
  EXPECT_EQ(lost[0].stack, (Stack{"s.py:9 <module>"}));
}

TEST(HostFunctionLostAtExit, EveryLaunchOfAGraphNodeRunsItOnceMore) {
  Harness h;
  const HostFunction node = driver_run(5, HostFunctionKind::python, 0, kStream2);
  for (int launch = 0; launch < 3; ++launch) enqueue(h, node);
  for (int run = 0; run < 2; ++run) {
    h.begin(kCallback, node);
    h.sanitizer.host_function_end(kCallback);
  }
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), 1u);
  h.sanitizer.interpreter_finished();
  EXPECT_EQ(h.reports_of(Checker::host_function_lost_at_exit).size(), 1u);
}

TEST(HostFunctionLostAtExit, AContextWithAStickyErrorAbandonsItsHostFunctions) {
  Harness h;
  enqueue(h, driver_run(1, HostFunctionKind::python));
  // A call the source sent fails with CUDA_ERROR_ILLEGAL_ADDRESS on kContext...
  h.call(kMain, "cuStreamSynchronize", kContext, kStream1, false, {.streams = {kStream1}}, 700);
  // ...and one it did not send, on kContext2.
  HostFunction in_second_context = driver_run(2, HostFunctionKind::python, 0, kStream3);
  in_second_context.context = kContext2;
  enqueue(h, in_second_context);
  h.sanitizer.context_failed(kContext2);
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), 0u) << "the runner must not wait for runs no driver will begin";
  HostFunction in_healthy_context = driver_run(3, HostFunctionKind::python, 0, kStream3);
  in_healthy_context.context = 0xc3;
  enqueue(h, in_healthy_context);
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), 1u);
  h.sanitizer.interpreter_finished();
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 1u) << "runs 1 and 2 were abandoned by their failed contexts";
  EXPECT_EQ(found[0].host_function->context, 0xc3u);
}

// A launch loop's runs share one description (SanitizerModel::note_driver_enqueue); each report still
// tells its own run: its key, stream and ids, and the enqueuing thread as it was named then.
TEST(HostFunctionLostAtExit, RunsEnqueuedTheSameWayAreEachReportedAsTheirOwn) {
  Harness h;
  h.sanitizer.name_thread(kMain, "main");
  HostFunction first = driver_run(1, HostFunctionKind::python, 0x71, kStream1);
  first.id = 0x81;
  enqueue(h, first, {"app.py:12 <module>"});
  HostFunction second = driver_run(2, HostFunctionKind::python, 0x72, kStream2);
  second.id = 0x82;
  enqueue(h, second, {"app.py:12 <module>"});
  h.sanitizer.name_thread(kMain, "launcher");
  enqueue(h, driver_run(3, HostFunctionKind::python, 0x73, kStream1), {"app.py:12 <module>"});
  enqueue(h, driver_run(4, HostFunctionKind::python, 0x74, kStream1), {"app.py:20 drain"});
  h.sanitizer.interpreter_finished();
  const auto found = h.reports_of(Checker::host_function_lost_at_exit);
  ASSERT_EQ(found.size(), 4u);
  ASSERT_TRUE(found[0].host_function && found[1].host_function && found[2].host_function);
  EXPECT_EQ(found[0].host_function->run_key, 1u);
  EXPECT_EQ(found[0].host_function->stream, kStream1);
  EXPECT_EQ(found[0].host_function->id, 0x81u);
  EXPECT_EQ(found[0].host_function->user_data, 0x71u);
  EXPECT_EQ(found[1].host_function->run_key, 2u);
  EXPECT_EQ(found[1].host_function->stream, kStream2);
  EXPECT_EQ(found[1].host_function->id, 0x82u);
  EXPECT_EQ(found[1].host_function->user_data, 0x72u);
  EXPECT_NE(found[1].summary.find("on stream 0x5002"), std::string::npos) << found[1].summary;
  EXPECT_NE(found[1].message.find("enqueued by thread 100 (main)"), std::string::npos) << found[1].message;
  EXPECT_NE(found[2].message.find("enqueued by thread 100 (launcher)"), std::string::npos) << found[2].message;
  EXPECT_EQ(found[2].stack, (Stack{"app.py:12 <module>"}));
  EXPECT_EQ(found[3].stack, (Stack{"app.py:20 drain"}));
}

TEST(HostFunctionLostAtExit, TheCheckerCanBeSwitchedOff) {
  Options options;
  options.set_enabled(Checker::host_function_lost_at_exit, false);
  Harness h(options);
  enqueue(h, driver_run(1, HostFunctionKind::python));
  h.sanitizer.interpreter_finished();
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lost_at_exit).empty());
}

}  // namespace
}  // namespace gilsan::checkers::testing
