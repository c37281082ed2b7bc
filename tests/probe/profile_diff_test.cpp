#include "harness/probe/profile_diff.h"

#include <gtest/gtest.h>

namespace gilsan::probe {
namespace {

DriverProfile shipped() { return load_driver_profile(GILSAN_SHIPPED_PROFILE); }

TEST(ProfileDiff, IdenticalBehaviourHasNoLinesWhateverTheOrigin) {
  DriverProfile a = shipped();
  DriverProfile b = shipped();
  b.origin.gpu = "another GPU";
  b.origin.driver_version = "999.1";
  b.unmeasured.clear();
  EXPECT_TRUE(diff_profiles(a, b).empty());
}

TEST(ProfileDiff, ListsEveryChangedCellOncePerLineInAFixedOrder) {
  DriverProfile a = shipped();
  a.inside_host_function["cuMemAlloc"] = InsideBehaviour::NotPermitted;
  a.inside_host_function["cuStreamSynchronize"] = InsideBehaviour::Allowed;
  a.while_host_function_runs["cuMemFree"] = OutsideBehaviour::Blocks;
  a.topology = DriverProfileTopology{};
  DriverProfile b = a;
  b.inside_host_function["cuMemAlloc"] = InsideBehaviour::Allowed;
  b.inside_host_function["cuStreamSynchronize"] = InsideBehaviour::Hangs;
  b.while_host_function_runs["cuMemFree"] = OutsideBehaviour::Returns;
  b.topology.enqueue_blocks_at_depth = 8;
  b.topology.callback_thread = CallbackThreadScope::PerDevice;
  b.topology.serialized_across_streams = false;
  std::vector<std::string> expected = {
      "topology.callback_thread: per-context -> per-device",
      "topology.serialized_across_streams: true -> false",
      "topology.enqueue_blocks_at_depth: null -> 8",
      "inside_host_function.cuMemAlloc: not-permitted -> allowed",
      "inside_host_function.cuStreamSynchronize: allowed -> hangs",
      "while_host_function_runs.cuMemFree: blocks -> returns",
  };
  EXPECT_EQ(diff_profiles(a, b), expected);
  std::vector<std::string> back = {
      "topology.callback_thread: per-device -> per-context",
      "topology.serialized_across_streams: false -> true",
      "topology.enqueue_blocks_at_depth: 8 -> null",
      "inside_host_function.cuMemAlloc: allowed -> not-permitted",
      "inside_host_function.cuStreamSynchronize: hangs -> allowed",
      "while_host_function_runs.cuMemFree: returns -> blocks",
  };
  EXPECT_EQ(diff_profiles(b, a), back);
}

}  // namespace
}  // namespace gilsan::probe
