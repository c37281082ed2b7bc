// What the parent concludes from a case's report lines, without running any driver.
#include <gtest/gtest.h>

#include "harness/probe/inside_matrix.h"
#include "harness/probe/outside_matrix.h"
#include "harness/probe/topology_probe.h"

namespace gilsan::probe {
namespace {

CaseResult reported(std::initializer_list<const char*> lines, bool killed = false, int signal = 0) {
  CaseResult result;
  result.label = "test";
  for (const char* line : lines) result.lines.push_back(*parse_case_line(line));
  result.killed_at_deadline = killed;
  result.signal = signal;
  result.exit_code = killed || signal != 0 ? -1 : 0;
  return result;
}

const CallRecipe& recipe(const char* id) {
  const CallRecipe* found = find_recipe(id);
  EXPECT_NE(found, nullptr) << id;
  return *found;
}

TEST(OutsideInterpretation, ReturnedWhileHeldIsReturns) {
  auto o = interpret_outside_case(recipe("cuMemAlloc"), reported({"control 0 CUDA_SUCCESS 40", "host-function-running",
                                                                  "call-started", "call-returned 0 CUDA_SUCCESS 35"}));
  EXPECT_EQ(o.observation, OutsideObservation::Returned);
  EXPECT_EQ(outside_verdict(o), OutsideBehaviour::Returns);
  ASSERT_TRUE(o.control.has_value());
  EXPECT_EQ(o.control->name, "CUDA_SUCCESS");
  EXPECT_EQ(o.call_microseconds, 35);
}

TEST(OutsideInterpretation, ReturnedOnlyAfterReleaseIsBlocksUnlessTheRecipeWaitsForS1) {
  auto lines = {"control 0 CUDA_SUCCESS 40", "host-function-running", "call-started", "held-back 250", "deadline 5000",
                "released", "call-returned 0 CUDA_SUCCESS 251000"};
  auto o = interpret_outside_case(recipe("cuMemFree"), reported(lines));
  EXPECT_EQ(o.observation, OutsideObservation::HeldBack);
  EXPECT_EQ(outside_verdict(o), OutsideBehaviour::Blocks);
  EXPECT_EQ(o.held_milliseconds, 250);
  auto dependent = interpret_outside_case(recipe("cuCtxSynchronize"), reported(lines));
  EXPECT_EQ(dependent.observation, OutsideObservation::WaitedForHostFunction);
  EXPECT_FALSE(outside_verdict(dependent).has_value());
}

TEST(OutsideInterpretation, NoReturnAfterReleaseAndSetupFailuresDecideNothing) {
  auto never = interpret_outside_case(
      recipe("cuMemFree"), reported({"host-function-running", "call-started", "held-back 250", "released"}, true));
  EXPECT_EQ(never.observation, OutsideObservation::NeverReturned);
  EXPECT_FALSE(outside_verdict(never).has_value());
  EXPECT_NE(never.problem.find("after the host function had ended"), std::string::npos) << never.problem;

  auto setup = interpret_outside_case(recipe("cuMemFree"), reported({"setup-failed CUDA_ERROR_OUT_OF_MEMORY cuMemAlloc"}));
  EXPECT_EQ(setup.observation, OutsideObservation::NotMeasured);
  EXPECT_EQ(setup.problem, "setup failed: cuMemAlloc (CUDA_ERROR_OUT_OF_MEMORY)");
}

TEST(InsideInterpretation, ResultCodesGiveNotPermittedOrAllowed) {
  auto refused = interpret_inside_case(recipe("cuMemAlloc"), reported({"control 0 CUDA_SUCCESS 30", "host-function-running",
                                                                       "deadline 1000", "call-started",
                                                                       "call-returned 800 CUDA_ERROR_NOT_PERMITTED 3"}));
  EXPECT_EQ(inside_verdict(refused), InsideBehaviour::NotPermitted);
  auto not_ready = interpret_inside_case(recipe("cuStreamQuery#own-stream"),
                                         reported({"host-function-running", "call-started", "call-returned 600 CUDA_ERROR_NOT_READY 2"}));
  EXPECT_EQ(inside_verdict(not_ready), InsideBehaviour::Allowed);
  ASSERT_TRUE(not_ready.code.has_value());
  EXPECT_EQ(not_ready.code->code, 600);
}

TEST(InsideInterpretation, NoReturnIsAHangOnlyWithoutADataDependency) {
  auto lines = {"host-function-running", "deadline 1000", "call-started"};
  auto hang = interpret_inside_case(recipe("cuMemAlloc"), reported(lines, true));
  EXPECT_EQ(hang.observation, InsideObservation::NoReturn);
  EXPECT_EQ(inside_verdict(hang), InsideBehaviour::Hangs);
  EXPECT_EQ(hang.waited_milliseconds, 1000);
  auto self_wait = interpret_inside_case(recipe("cuStreamSynchronize#own-stream"), reported(lines, true));
  EXPECT_EQ(self_wait.observation, InsideObservation::WaitedForHostFunction);
  EXPECT_FALSE(inside_verdict(self_wait).has_value());
}

TEST(InsideInterpretation, ACrashOrAnEarlyDeathIsNotMeasured) {
  auto crash = interpret_inside_case(recipe("cuMemAlloc"), reported({"host-function-running", "call-started"}, false, 11));
  EXPECT_EQ(crash.observation, InsideObservation::NotMeasured);
  EXPECT_NE(crash.problem.find("did not return"), std::string::npos) << crash.problem;
  auto early = interpret_inside_case(recipe("cuMemAlloc"), reported({"control 0 CUDA_SUCCESS 3"}, true));
  EXPECT_EQ(early.observation, InsideObservation::NotMeasured);
  EXPECT_NE(early.problem.find("killed at its deadline"), std::string::npos) << early.problem;
}

TEST(TopologyInterpretation, ThreadsGiveTheScopeAndConcurrency) {
  auto threads = reported({"devices 2", "callback-thread 101 primary context of device 0, S1",
                           "callback-thread 101 primary context of device 0, S2", "callback-thread 101 second context on device 0",
                           "callback-thread 202 primary context of device 1", "concurrent streams no",
                           "concurrent contexts no", "concurrent devices yes"});
  auto context = reported({"host-function-running", "call-started", "callback-current-context 800 CUDA_ERROR_NOT_PERMITTED -"});
  auto depth = reported({"enqueue-blocked 8"});
  TopologyEvidence t = interpret_topology_cases(threads, context, depth);
  EXPECT_EQ(t.callback_thread, CallbackThreadScope::PerDevice);
  EXPECT_EQ(t.streams_concurrent, false);
  EXPECT_EQ(t.contexts_concurrent, false);
  EXPECT_EQ(t.devices_concurrent, true);
  EXPECT_EQ(t.current_context_on_callback, "CUDA_ERROR_NOT_PERMITTED");
  EXPECT_TRUE(t.enqueue_measured);
  EXPECT_EQ(t.enqueue_blocks_at_depth, 8);
  EXPECT_EQ(t.callback_threads.size(), 4u);
  EXPECT_EQ(t.callback_threads[3].first, "primary context of device 1");
}

TEST(TopologyInterpretation, OneDeviceCannotTellPerDeviceFromPerProcessAndAHeldFirstEnqueueGivesNoDepth) {
  auto threads = reported({"devices 1", "callback-thread 7 primary context of device 0, S1",
                           "callback-thread 7 primary context of device 0, S2", "callback-thread 7 second context on device 0",
                           "concurrent streams no", "concurrent contexts no"});
  TopologyEvidence t = interpret_topology_cases(threads, reported({}, true), reported({"enqueue-blocked 0"}));
  EXPECT_FALSE(t.callback_thread.has_value());
  EXPECT_NE(t.callback_thread_note.find("cannot be told apart"), std::string::npos);
  EXPECT_FALSE(t.enqueue_measured);
  EXPECT_FALSE(t.callback_context_problem.empty());

  auto per_context = reported({"devices 1", "callback-thread 7 a", "callback-thread 7 b", "callback-thread 8 c",
                               "concurrent streams no", "concurrent contexts yes"});
  EXPECT_EQ(interpret_topology_cases(per_context, {}, reported({"enqueue-never-blocked 4096"})).callback_thread,
            CallbackThreadScope::PerContext);
}

}  // namespace
}  // namespace gilsan::probe
