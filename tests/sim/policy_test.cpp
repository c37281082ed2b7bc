// Every entry point of the profile, called from inside a host function and from another thread while
// a host function runs, behaves as the profile says. Each call runs in a child process
// (gilsan_sim_test_child), so a call that hangs can be watched and then killed.
#include <gtest/gtest.h>

#include "harness/profile/driver_profile.h"
#include "tests/sim/child_process.h"
#include "tests/sim/entry_point_calls.h"
#include "tests/sim/expected_profile.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

// How long a call expected to hang must stay silent; it returns in microseconds when it does not hang.
constexpr std::chrono::milliseconds kHangEvidence{2000};

class InsideHostFunction : public ::testing::TestWithParam<std::string> {};
class WhileHostFunctionRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(InsideHostFunction, BehavesAsTheProfileSays) {
  const std::string& entry = GetParam();
  const EntryPointCall* call = find_entry_point_call(entry);
  ASSERT_NE(nullptr, call) << "tests/sim/entry_point_calls.cpp has no call for " << entry;
  InsideBehaviour expected = expected_profile().inside(entry);
  // A call that waits for its own context cannot return from inside it, whatever else it may do.
  const bool expect_hang =
      expected == InsideBehaviour::Hangs || (expected == InsideBehaviour::Allowed && call->waits_for_context_inside);
  SCOPED_TRACE("profile " + expected_profile_path() + ": inside_host_function." + entry + " = " + to_string(expected));

  ChildProcess child(child_arguments({"inside", entry}));
  ASSERT_TRUE(child.wait_for_line("calling ", kHangTimeout)) << child.output();
  if (expect_hang) {
    EXPECT_FALSE(child.wait_for_line("called ", kHangEvidence)) << "expected a hang; " << child.output();
    child.kill();
    return;
  }
  ASSERT_TRUE(child.wait_for_line("called ", kHangTimeout)) << "hung; " << child.output();
  if (expected == InsideBehaviour::NotPermitted) {
    EXPECT_EQ(code(CUDA_ERROR_NOT_PERMITTED), child.line_value("called ")) << child.output();
  } else {
    EXPECT_EQ(code(CUDA_SUCCESS), child.line_value("called ")) << child.output();
  }
  // After the call, both streams still complete.
  EXPECT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ("yes", child.line_value("drained ")) << child.output();
  EXPECT_EQ(0, child.exit_code()) << child.output();
}

TEST_P(WhileHostFunctionRuns, BehavesAsTheProfileSays) {
  const std::string& entry = GetParam();
  const EntryPointCall* call = find_entry_point_call(entry);
  ASSERT_NE(nullptr, call) << "tests/sim/entry_point_calls.cpp has no call for " << entry;
  OutsideBehaviour expected = expected_profile().outside(call->destroys_context_outside ? "cuCtxDestroy" : entry);
  // A call that waits for the whole context is held back by the running host function through data.
  const bool expect_block = expected == OutsideBehaviour::Blocks || call->waits_for_context_outside;
  SCOPED_TRACE("profile " + expected_profile_path() + ": while_host_function_runs." + entry + " = " +
               to_string(expected));

  ChildProcess child(child_arguments({"outside", entry}));
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << "hung; " << child.output();
  EXPECT_EQ(code(CUDA_SUCCESS), child.line_value("called ")) << child.output();
  EXPECT_EQ(expect_block ? "blocks" : "returns", child.line_value("verdict ")) << child.output();
  EXPECT_EQ(0, child.exit_code()) << child.output();
}

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Profile, InsideHostFunction, ::testing::ValuesIn(profiled_entry_points()), name_of);
INSTANTIATE_TEST_SUITE_P(Profile, WhileHostFunctionRuns, ::testing::ValuesIn(profiled_entry_points()), name_of);

TEST(InsideHostFunction, SynchronizingItsOwnStreamHangs) {
  ChildProcess child(child_arguments({"own-stream-synchronize"}));
  ASSERT_TRUE(child.wait_for_line("calling ", kHangTimeout)) << child.output();
  EXPECT_FALSE(child.wait_for_line("called ", kHangEvidence)) << "expected a hang; " << child.output();
}

TEST(InsideHostFunction, SynchronizingAnEventRecordedAfterItHangs) {
  ChildProcess child(child_arguments({"later-event-synchronize"}));
  ASSERT_TRUE(child.wait_for_line("calling ", kHangTimeout)) << child.output();
  EXPECT_FALSE(child.wait_for_line("called ", kHangEvidence)) << "expected a hang; " << child.output();
}

TEST(InsideHostFunction, ItsOwnStreamAndLaterEventsAreNotReady) {
  ChildProcess child(child_arguments({"own-work-queries"}));
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_NOT_READY), child.line_value("stream-query ")) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_NOT_READY), child.line_value("event-query ")) << child.output();
  EXPECT_EQ("yes", child.line_value("drained ")) << child.output();
}

TEST(Catalogue, HasACallForEveryProfiledEntryPoint) {
  for (const std::string& entry : profiled_entry_points())
    EXPECT_NE(nullptr, find_entry_point_call(entry)) << entry;
}

}  // namespace
}  // namespace gilsan::test
