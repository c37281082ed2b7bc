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

// `profile` as a file written before the driver table had `entry` reads: listing it in neither table.
DriverProfile without(DriverProfile profile, const std::string& entry) {
  profile.inside_host_function.erase(entry);
  profile.while_host_function_runs.erase(entry);
  return parse_driver_profile(to_json(profile), "older.json");
}

// An entry point only one of the two lists is one line, whatever the other's unmeasured answers are;
// one that both lack is no line.
TEST(ProfileDiff, AnEntryPointOneProfileLacksIsNewOrRemoved) {
  const DriverProfile current = shipped();
  DriverProfile older = without(current, "cuDeviceGetUuid");
  ASSERT_EQ(older.inside("cuDeviceGetUuid"), InsideBehaviour::Allowed);
  ASSERT_EQ(current.inside("cuDeviceGetUuid"), InsideBehaviour::NotPermitted);
  EXPECT_EQ(diff_profiles(older, current),
            std::vector<std::string>{
                "new entry point cuDeviceGetUuid: inside_host_function not-permitted, while_host_function_runs returns"});
  EXPECT_EQ(diff_profiles(current, older),
            std::vector<std::string>{
                "removed entry point cuDeviceGetUuid: inside_host_function not-permitted, while_host_function_runs returns"});
  older.while_host_function_runs["cuMemFree"] = OutsideBehaviour::Returns;
  EXPECT_EQ(diff_profiles(older, without(current, "cuDeviceGetUuid")),
            std::vector<std::string>{"while_host_function_runs.cuMemFree: returns -> blocks"});
}

}  // namespace
}  // namespace gilsan::probe
