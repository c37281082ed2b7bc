// The simulated driver's call tables under CUDA_MODULE_LOADING=EAGER: the profile's
// eager_call_overrides apply under EAGER and only there (the real driver has no such switch to test;
// the probe's EagerCallOverridesRoundTrip compares both halves on the sim end to end).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/profile/driver_profile.h"
#include "tests/sim/child_process.h"
#include "tests/sim/entry_point_calls.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

class SimEagerCallTables : public ::testing::Test {
 protected:
  void SetUp() override {
    SIM_ONLY();
    profile_ = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
    // The other answer of each, whatever the shipped profile says.
    const InsideBehaviour alloc = profile_.inside("cuMemAlloc");
    const OutsideBehaviour free = profile_.outside("cuMemFree");
    profile_.eager_call_overrides = CallTableOverrides{
        {{"cuMemAlloc", alloc == InsideBehaviour::Allowed ? InsideBehaviour::NotPermitted : InsideBehaviour::Allowed}},
        {{"cuMemFree", free == OutsideBehaviour::Blocks ? OutsideBehaviour::Returns : OutsideBehaviour::Blocks}}};
    file_ = std::filesystem::temp_directory_path() / ("gilsan-eager-calls-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file_) << to_json(profile_);
  }
  void TearDown() override { std::filesystem::remove(file_); }

  std::map<std::string, std::string> environment(ModuleLoading mode) const {
    return {{"CUDA_MODULE_LOADING", mode == ModuleLoading::Eager ? "EAGER" : "LAZY"},
            {"GILSAN_SIM_PROFILE", file_.string()}};
  }

  DriverProfile profile_;
  std::filesystem::path file_;
};

TEST_F(SimEagerCallTables, TheOverridesApplyUnderEagerOnly) {
  for (ModuleLoading mode : module_loading_modes()) {
    SCOPED_TRACE(to_string(mode));
    ChildProcess inside(child_arguments({"inside", "cuMemAlloc"}), environment(mode));
    ASSERT_TRUE(inside.wait_for_exit(kHangTimeout)) << inside.output();
    const bool refused = profile_.inside(mode, "cuMemAlloc") == InsideBehaviour::NotPermitted;
    EXPECT_EQ(code(refused ? CUDA_ERROR_NOT_PERMITTED : CUDA_SUCCESS), inside.line_value("called ")) << inside.output();

    const EntryPointCall* call = find_entry_point_call("cuMemFree");
    ASSERT_NE(call, nullptr);
    ChildProcess outside(child_arguments({"outside", "cuMemFree"}), environment(mode));
    ASSERT_TRUE(outside.wait_for_exit(kHangTimeout)) << outside.output();
    const bool blocks = profile_.outside(mode, "cuMemFree") == OutsideBehaviour::Blocks || call->waits_for_context_outside;
    EXPECT_EQ(blocks ? "blocks" : "returns", outside.line_value("verdict ")) << outside.output();
  }
  // The two modes must differ, or the test proves nothing.
  EXPECT_NE(profile_.inside(ModuleLoading::Lazy, "cuMemAlloc"), profile_.inside(ModuleLoading::Eager, "cuMemAlloc"));
  EXPECT_NE(profile_.outside(ModuleLoading::Lazy, "cuMemFree"), profile_.outside(ModuleLoading::Eager, "cuMemFree"));
}

}  // namespace
}  // namespace gilsan::test
