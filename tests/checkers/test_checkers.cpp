// Each checker other than lock-order-cycle: fires on its trigger, stays silent otherwise; plus the
// switches, the exit-code policy and halt_on_error.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

HostFunction python_cb(std::uint64_t id = 0, Handle stream = kStream1) {
  return Harness::host_function(HostFunctionKind::python, stream, "on_done at scenario.py:14",
                                kContext, id);
}

// --- cuda-call-in-host-function ---------------------------------------------------------------

TEST(CudaCallInHostFunction, RefusedCallIsReportedWithResultAndStack) {
  Harness h;
  h.begin(kCallback, python_cb());
  h.call(kCallback, "cuMemAlloc", kContext, std::nullopt, true, {}, kCudaErrorNotPermitted,
         {"cupy alloc", "on_done at scenario.py:15"});
  h.sanitizer.host_function_end(kCallback);
  const auto found = h.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  const Report& report = found[0];
  ASSERT_TRUE(report.call);
  EXPECT_EQ(report.call->entry_point, "cuMemAlloc");
  EXPECT_TRUE(report.call->returned);
  EXPECT_EQ(report.call->result, kCudaErrorNotPermitted);
  EXPECT_EQ(report.call->result_name, "CUDA_ERROR_NOT_PERMITTED");
  EXPECT_EQ(report.stack, (Stack{"cupy alloc", "on_done at scenario.py:15"}));
  ASSERT_TRUE(report.host_function);
  EXPECT_EQ(report.host_function->callable, "on_done at scenario.py:14");
  EXPECT_EQ(report.summary,
            "host function on_done at scenario.py:14 (python, gilsan) on stream 0x5001 called "
            "cuMemAlloc(context 0xc1), which returned CUDA_ERROR_NOT_PERMITTED (800)");
  EXPECT_NE(report.message.find("NOT_PERMITTED"), std::string::npos);
}

TEST(CudaCallInHostFunction, AllowedCallIsReportedAsAllowed) {
  Harness h;
  h.begin(kCallback, python_cb());
  h.call(kCallback, "cuStreamQuery", kContext, kStream2, false, {});
  h.sanitizer.host_function_end(kCallback);
  const auto found = h.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].call->result, kCudaSuccess);
  EXPECT_NE(found[0].message.find("did not refuse"), std::string::npos);
}

TEST(CudaCallInHostFunction, ErrorStringLookupsAreNotReported) {
  Harness h;
  h.begin(kCallback, python_cb());
  h.call(kCallback, "cuGetErrorName", kContext, std::nullopt, false, {});
  h.call(kCallback, "cuGetErrorString", kContext, std::nullopt, false, {});
  h.sanitizer.host_function_end(kCallback);
  EXPECT_TRUE(h.reports_of(Checker::cuda_call_in_host_function).empty());
}

TEST(CudaCallInHostFunction, CallsOutsideHostFunctionsAreSilent) {
  Harness h;
  h.call(kMain, "cuMemAlloc", kContext, std::nullopt, false, {});
  h.run(kCallback, python_cb());
  h.call(kCallback, "cuStreamQuery", kContext, kStream1, false, {});  // after it returned
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::cuda_call_in_host_function).empty());
}

TEST(CudaCallInHostFunction, CallThatNeverReturnsIsReportedAtFinish) {
  Harness h;
  h.begin(kCallback, python_cb());
  h.sanitizer.driver_call_enter({.thread = kCallback,
                                 .entry_point = "cuStreamSynchronize",
                                 .context = kContext,
                                 .stream = kStream1,
                                 .holds_gil = false,
                                 .waits = {.streams = {kStream1}}});
  EXPECT_TRUE(h.reports_of(Checker::cuda_call_in_host_function).empty());
  h.sanitizer.finish();
  const auto found = h.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].call->returned);
  EXPECT_NE(found[0].summary.find("has not returned"), std::string::npos);
}

TEST(CudaCallInHostFunction, SameCallSiteIsReportedOnce) {
  Harness h;
  for (int repeat = 0; repeat < 10; ++repeat) {
    h.begin(kCallback, python_cb());
    h.call(kCallback, "cuMemFree", kContext, std::nullopt, true, {}, kCudaErrorNotPermitted, {"f"});
    h.sanitizer.host_function_end(kCallback);
  }
  EXPECT_EQ(h.reports_of(Checker::cuda_call_in_host_function).size(), 1u);
}

// --- gil-held-blocking-call -------------------------------------------------------------------

TEST(GilHeldBlockingCall, FiresWithNoCallbackPendingAndNamesPendingOnesWhenThereAre) {
  Harness h;
  h.sync_stream(kMain, kStream1, true, {"a"});
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb()});
  h.sync_stream(kMain, kStream1, true, {"b"});
  const auto found = h.reports_of(Checker::gil_held_blocking_call);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].summary, "cuStreamSynchronize(stream 0x5001) can block with the GIL held");
  EXPECT_NE(found[0].message.find("no host function is known to be pending"), std::string::npos);
  EXPECT_NE(found[1].message.find("pending there: host function on_done at scenario.py:14"),
            std::string::npos);
  EXPECT_EQ(found[1].stack, Stack{"b"});
  EXPECT_TRUE(h.cycles().empty());  // nothing has needed the GIL from that stream yet
}

TEST(GilHeldBlockingCall, ACallTheDriverBlocksCountsAsBlocking) {
  Harness h;
  h.call(kMain, "cuModuleLoadData", kContext, std::nullopt, true, {});
  const auto found = h.reports_of(Checker::gil_held_blocking_call);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("the driver blocks it while a host function"), std::string::npos);
}

TEST(GilHeldBlockingCall, SilentWithoutTheGilOrForCallsThatDoNotBlock) {
  Harness h;
  h.sync_stream(kMain, kStream1, false);
  h.call(kMain, "cuStreamQuery", kContext, kStream1, true, {});
  h.call(kMain, "cuEventRecord", kContext, kStream1, true, {});
  h.take_gil(kMain);
  h.sanitizer.gil_released(kMain);
  h.call(kMain, "cuCtxSynchronize", kContext, std::nullopt, std::nullopt, {.whole_context = true});
  EXPECT_TRUE(h.reports_of(Checker::gil_held_blocking_call).empty());
}

TEST(GilHeldBlockingCall, GilEventsCountWhenTheCallDoesNotSay) {
  Harness h;
  h.take_gil(kMain);
  h.call(kMain, "cuCtxSynchronize", kContext, std::nullopt, std::nullopt, {.whole_context = true});
  EXPECT_EQ(h.reports_of(Checker::gil_held_blocking_call).size(), 1u);
}

TEST(GilHeldBlockingCall, CanBeSwitchedOff) {
  Harness h(parse_options("gil_held_blocking_call=0"));
  h.sync_stream(kMain, kStream1, true);
  EXPECT_TRUE(h.sanitizer.reports().empty());
  EXPECT_EQ(h.sanitizer.finish().exit_code, 0);
}

// --- unraisable-in-host-function --------------------------------------------------------------

TEST(UnraisableInHostFunction, FiresWithTheHostFunctionAndTheException) {
  Harness h;
  h.begin(kCallback, python_cb());
  h.sanitizer.unraisable_in_host_function({.thread = kCallback,
                                           .message = "ValueError: boom\n  more",
                                           .stack = {"on_done at scenario.py:16"}});
  h.sanitizer.host_function_end(kCallback);
  const auto found = h.reports_of(Checker::unraisable_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      found[0].summary,
      "an exception escaped host function on_done at scenario.py:14 (python, gilsan) on stream "
      "0x5001: ValueError: boom");
  EXPECT_EQ(found[0].stack, Stack{"on_done at scenario.py:16"});
  ASSERT_TRUE(found[0].thread);
  EXPECT_EQ(found[0].thread->id, kCallback);
}

TEST(UnraisableInHostFunction, SilentWhenNothingEscapesAndOncePerSite) {
  Harness h;
  h.run(kCallback, python_cb());
  EXPECT_TRUE(h.sanitizer.reports().empty());
  for (int repeat = 0; repeat < 3; ++repeat) {
    h.begin(kCallback, python_cb());
    h.sanitizer.unraisable_in_host_function({.thread = kCallback, .message = "ValueError: boom"});
    h.sanitizer.host_function_end(kCallback);
  }
  EXPECT_EQ(h.reports_of(Checker::unraisable_in_host_function).size(), 1u);
}

// --- host-function-after-finalization ---------------------------------------------------------

TEST(HostFunctionAfterFinalization, PythonHostFunctionAfterFinalizationBeganFires) {
  Harness h;
  h.run(kCallback, python_cb());
  EXPECT_TRUE(h.reports_of(Checker::host_function_after_finalization).empty());
  h.sanitizer.interpreter_finalization_began();
  h.run(kCallback, python_cb());
  const auto found = h.reports_of(Checker::host_function_after_finalization);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].host_function->kind, HostFunctionKind::python);
}

TEST(HostFunctionAfterFinalization, NativeHostFunctionAfterFinalizationIsFine) {
  Harness h;
  h.sanitizer.interpreter_finalization_began();
  h.run(kCallback, Harness::host_function(HostFunctionKind::native, kStream1, "memcpy"));
  EXPECT_TRUE(h.sanitizer.reports().empty());
}

TEST(HostFunctionAfterFinalization, CtypesHostFunctionTakingTheGilFires) {
  Harness h;
  h.sanitizer.interpreter_finalization_began();
  h.begin(kCallback, Harness::host_function(HostFunctionKind::ctypes, kStream1, "CFUNCTYPE(cb)"));
  h.sanitizer.gil_acquire_begin(kCallback, {"PyGILState_Ensure", "ctypes closure"});
  const auto found = h.reports_of(Checker::host_function_after_finalization);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].stack, (Stack{"PyGILState_Ensure", "ctypes closure"}));
}

// --- host-function-lifetime -------------------------------------------------------------------

TEST(HostFunctionLifetime, ReleaseAfterTheRunIsFine) {
  Harness h;
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.run(kCallback, python_cb(0xa1));
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
}

TEST(HostFunctionLifetime, ReleaseBeforeTheRunFires) {
  Harness h;
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1, .stack = {"host_launch error path"}});
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("released with 1 run(s) still enqueued"), std::string::npos);
  EXPECT_EQ(found[0].stack, Stack{"host_launch error path"});
  // The run that follows is the same bug: not reported twice.
  h.run(kCallback, python_cb(0xa1));
  EXPECT_EQ(h.reports_of(Checker::host_function_lifetime).size(), 1u);
}

TEST(HostFunctionLifetime, ReleaseOfAbandonedRunsIsFine) {
  Harness h;
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1, .abandoned_runs = true});
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
}

TEST(HostFunctionLifetime, RunAfterReleaseFires) {
  Harness h;
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.run(kCallback, python_cb(0xa1));
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
  h.run(kCallback, python_cb(0xa1));  // the driver calls it again: a use after free
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("ran after its callable was released"), std::string::npos);
}

TEST(HostFunctionLifetime, ReusedIdIsANewCallable) {
  Harness h;
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.run(kCallback, python_cb(0xa1));
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(0xa1)});
  h.run(kCallback, python_cb(0xa1));
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
}

// The books of a callable that is done are reused for the next one (node_pool.h): nothing of the
// first may show in the second's report.
TEST(HostFunctionLifetime, TheNextCallableIsToldAsItselfInTheBooksOfOneThatIsDone) {
  Harness h;
  HostFunction first = python_cb(0xa1);
  first.callable = "first_callable_with_a_long_name at scenario.py:3";
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = first});
  h.run(kCallback, first);
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  HostFunction second = python_cb(0xb2);
  second.callable = "cb2 at scenario.py:9";
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = second});
  h.sanitizer.callable_released({.thread = kMain, .id = 0xb2});
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("cb2 at scenario.py:9"), std::string::npos) << found[0].summary;
  EXPECT_EQ(found[0].summary.find("first_callable"), std::string::npos) << found[0].summary;
  EXPECT_NE(found[0].summary.find("released with 1 run(s) still enqueued"), std::string::npos) << found[0].summary;
}

// A Python callable `id` enqueued, run and released with nothing outstanding (its id is remembered).
void run_and_release(Harness& h, std::uint64_t id) {
  h.sanitizer.host_function_enqueued({.thread = kMain, .host_function = python_cb(id)});
  h.run(kCallback, python_cb(id));
  h.sanitizer.callable_released({.thread = kMain, .id = id});
}

// Released ids are remembered (a run after the release is a use after free) up to a bound; past it the
// oldest are forgotten and the newest still remembered.
TEST(HostFunctionLifetime, ARunAfterReleaseIsFoundPastTheBoundOfRememberedIds) {
  Harness h;
  constexpr std::uint64_t kCallables = 5000;
  for (std::uint64_t id = 1; id <= kCallables; ++id) run_and_release(h, id);
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
  h.run(kCallback, python_cb(kCallables));
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("ran after its callable was released"), std::string::npos);
}

// An id released, reused by a new callable and released again is remembered from its second release:
// its first release leaving the bound must not make the sanitizer forget it.
TEST(HostFunctionLifetime, AReusedIdIsRememberedFromItsLatestRelease) {
  Harness h;
  constexpr std::uint64_t kReused = 1;
  run_and_release(h, kReused);
  run_and_release(h, kReused);  // a new callable at the same address
  // Enough releases after it that the first release of the reused id is past the bound (4,096
  // remembered), and the second is not.
  for (std::uint64_t id = 2; id <= 4096; ++id) run_and_release(h, id);
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
  h.run(kCallback, python_cb(kReused));
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("ran after its callable was released"), std::string::npos);
}

TEST(HostFunctionLifetime, ReleaseWhileAGraphCanStillLaunchItFires) {
  Harness h;
  h.sanitizer.graph_holds_callable(0x9, python_cb(0xb2));
  h.run(kCallback, python_cb(0xb2));
  h.sanitizer.callable_released({.thread = kMain, .id = 0xb2});
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("graph(s) can still launch it"), std::string::npos);
}

TEST(HostFunctionLifetime, KeptAfterItsGraphIsGoneFiresAtFinish) {
  Harness h;
  h.sanitizer.graph_holds_callable(0x9, python_cb(0xb2));
  h.run(kCallback, python_cb(0xb2));
  h.sanitizer.graph_destroyed(0x9);
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
  h.sanitizer.finish();
  const auto found = h.reports_of(Checker::host_function_lifetime);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("kept after every graph holding it was destroyed"),
            std::string::npos);
}

TEST(HostFunctionLifetime, ReleasedAfterItsLastGraphIsFine) {
  Harness h;
  h.sanitizer.graph_holds_callable(0x9, python_cb(0xb2));
  h.sanitizer.graph_holds_callable(0xa, python_cb(0xb2));
  h.run(kCallback, python_cb(0xb2));
  h.sanitizer.graph_destroyed(0x9);
  h.sanitizer.graph_destroyed(0xa);
  h.sanitizer.callable_released({.thread = kMain, .id = 0xb2});
  h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lifetime).empty());
}

// --- switches, exit code, halt ----------------------------------------------------------------

TEST(CheckerSwitches, EachCheckerCanBeSwitchedOff) {
  Harness h(parse_options(
      "lock_order_cycle=0:cuda_call_in_host_function=0:gil_held_blocking_call=0:"
      "unraisable_in_host_function=0:host_function_after_finalization=0:host_function_lifetime=0"));
  h.run(kCallback, python_cb());
  h.sync_stream(kMain, kStream1, true);
  h.begin(kCallback, python_cb(0xa1));
  h.call(kCallback, "cuMemAlloc", kContext, std::nullopt, true, {}, kCudaErrorNotPermitted);
  h.sanitizer.unraisable_in_host_function({.thread = kCallback, .message = "E"});
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.callable_released({.thread = kMain, .id = 0xa1});
  h.sanitizer.interpreter_finalization_began();
  h.run(kCallback, python_cb());
  const RunSummary summary = h.sanitizer.finish();
  EXPECT_TRUE(summary.reports.empty());
  EXPECT_EQ(summary.exit_code, 0);
}

TEST(ExitCode, IsTheConfiguredCodeOnlyWhenSomethingWasReported) {
  Harness quiet(parse_options("exitcode=3"));
  quiet.run(kCallback, python_cb());
  EXPECT_EQ(quiet.sanitizer.exit_code(), 0);
  EXPECT_EQ(quiet.sanitizer.finish().exit_code, 0);

  Harness noisy(parse_options("exitcode=3"));
  noisy.run(kCallback, python_cb());
  noisy.sync_stream(kMain, kStream1, true);
  EXPECT_EQ(noisy.sanitizer.exit_code(), 3);
  EXPECT_EQ(noisy.sanitizer.finish().exit_code, 3);
}

TEST(HaltOnError, HaltsOnceAfterTheFirstReportReachedTheSinks) {
  auto sink = std::make_shared<RecordingSink>();
  std::vector<int> halts;
  std::size_t reports_seen_at_halt = 0;
  Sanitizer sanitizer(SanitizerConfig{
      parse_options("halt_on_error=1:exitcode=9"), measured_driver(), {}, {sink}, [&](int code) {
        halts.push_back(code);
        reports_seen_at_halt = sink->reports().size();
      }});
  sanitizer.driver_call_enter({.thread = kMain,
                               .entry_point = "cuStreamSynchronize",
                               .context = kContext,
                               .stream = kStream1,
                               .holds_gil = true,
                               .waits = {.streams = {kStream1}}});
  sanitizer.driver_call_enter({.thread = kMain,
                               .entry_point = "cuCtxSynchronize",
                               .context = kContext,
                               .holds_gil = true,
                               .waits = {.whole_context = true}});
  EXPECT_EQ(halts, std::vector<int>{9});
  EXPECT_EQ(reports_seen_at_halt, 1u);
}

TEST(HaltOnError, SuppressedReportsDoNotHalt) {
  int halts = 0;
  Sanitizer sanitizer(
      SanitizerConfig{parse_options("halt_on_error=1"),
                      measured_driver(),
                      Suppressions::parse("gil-held-blocking-call:cuStreamSynchronize", "s"),
                      {},
                      [&](int) { ++halts; }});
  sanitizer.driver_call_enter({.thread = kMain,
                               .entry_point = "cuStreamSynchronize",
                               .context = kContext,
                               .stream = kStream1,
                               .holds_gil = true,
                               .waits = {.streams = {kStream1}}});
  EXPECT_EQ(halts, 0);
  EXPECT_EQ(sanitizer.finish().suppressed, 1u);
}

TEST(Finish, SecondFinishDeliversNothingAndLaterEventsAreIgnored) {
  Harness h;
  h.sanitizer.finish();
  h.sync_stream(kMain, kStream1, true);
  const RunSummary again = h.sanitizer.finish();
  EXPECT_TRUE(again.reports.empty());
  EXPECT_EQ(again.ignored_events, 2u);  // the enter and the exit
  EXPECT_EQ(h.sink->summaries().size(), 1u);
}

}  // namespace
}  // namespace gilsan::checkers::testing
