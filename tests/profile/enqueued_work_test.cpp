// The enqueued-work table of a driver profile (/2): per loading mode, both halves of enqueuing calls
// and first kernel uses; reading /1 profiles, which never measured it; errors that name line and key.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/profile/driver_profile.h"
#include "tests/profile/profile_error_text.h"

namespace gilsan {
namespace {

constexpr const char* kWorkKey = "enqueued_work_while_host_function_runs";

// A /2 profile whose lazy first library-kernel launch waits for host functions in its work only.
DriverProfile lazy_first_launch_waits() {
  DriverProfile profile = load_driver_profile(GILSAN_PROFILE_V1_FIXTURE);
  profile.enqueued_work[ModuleLoading::Lazy]["cuLaunchKernel#first-library-kernel"] = WorkBehaviour::WorkWaits;
  profile.enqueued_work[ModuleLoading::Lazy]["cuLaunchKernel#first-module-function"] = WorkBehaviour::CallBlocks;
  profile.unmeasured.clear();
  return profile;
}

TEST(EnqueuedWork, VersionOneProfileTakesEachCellFromItsCall) {
  DriverProfile v1 = load_driver_profile(GILSAN_PROFILE_V1_FIXTURE);
  for (ModuleLoading mode : module_loading_modes()) {
    ASSERT_EQ(enqueued_work_cells().size(), v1.enqueued_work.at(mode).size());
    for (const EnqueuedWorkCell& cell : enqueued_work_cells()) {
      // The H200's topology serializes host functions across streams: one on another stream waits.
      const WorkBehaviour returned = cell.work_is_host_function ? WorkBehaviour::WorkWaits : WorkBehaviour::Proceeds;
      // A runtime call has no row in the driver's call table: nothing says it blocks.
      const bool blocks = !cell.runtime_call && v1.outside(cell.entry_point) == OutsideBehaviour::Blocks;
      const WorkBehaviour expected = blocks ? WorkBehaviour::CallBlocks : returned;
      EXPECT_EQ(expected, v1.work(mode, cell.name)) << to_string(mode) << " " << cell.name;
      const std::string listed = std::string(kWorkKey) + "." + to_string(mode) + "." + cell.name;
      EXPECT_NE(v1.unmeasured.end(), std::find(v1.unmeasured.begin(), v1.unmeasured.end(), listed)) << listed;
    }
  }
  // The H200 measured cuKernelGetFunction (a first use) as held back, and kernel launches as returning.
  EXPECT_EQ(WorkBehaviour::CallBlocks, v1.work(ModuleLoading::Eager, "cuKernelGetFunction#first"));
  EXPECT_EQ(WorkBehaviour::Proceeds, v1.work(ModuleLoading::Lazy, "cuLaunchKernel#first-module-function"));
  EXPECT_EQ(WorkBehaviour::WorkWaits, v1.work(ModuleLoading::Lazy, "cuLaunchHostFunc"));
  // Where host functions of different streams may overlap, one on another stream does not wait.
  DriverProfileTopology concurrent = v1.topology;
  concurrent.serialized_across_streams = false;
  EXPECT_EQ(WorkBehaviour::Proceeds,
            enqueued_work_from_calls(v1.while_host_function_runs, concurrent).at(ModuleLoading::Lazy).at("cuLaunchHostFunc"));
}

TEST(EnqueuedWork, VersionOneProfileIsWrittenAsVersionTwo) {
  DriverProfile v1 = load_driver_profile(GILSAN_PROFILE_V1_FIXTURE);
  const std::string json = to_json(v1);
  EXPECT_NE(std::string::npos, json.find("\"schema\": \"gilsan-driver-profile/2\""));
  DriverProfile again = parse_driver_profile(json, "v2.json");
  EXPECT_TRUE(v1.same_behaviour(again));
  EXPECT_EQ(v1.unmeasured, again.unmeasured);
}

TEST(EnqueuedWork, ModesRoundTripSeparately) {
  DriverProfile profile = lazy_first_launch_waits();
  DriverProfile again = parse_driver_profile(to_json(profile), "round-trip");
  EXPECT_TRUE(profile.same_behaviour(again));
  EXPECT_EQ(WorkBehaviour::WorkWaits, again.work(ModuleLoading::Lazy, "cuLaunchKernel#first-library-kernel"));
  EXPECT_EQ(WorkBehaviour::CallBlocks, again.work(ModuleLoading::Lazy, "cuLaunchKernel#first-module-function"));
  EXPECT_EQ(WorkBehaviour::Proceeds, again.work(ModuleLoading::Eager, "cuLaunchKernel#first-library-kernel"));
  DriverProfile eager_differs = again;
  eager_differs.enqueued_work[ModuleLoading::Eager]["cuLaunchKernel"] = WorkBehaviour::WorkWaits;
  EXPECT_FALSE(again.same_behaviour(eager_differs));
}

TEST(EnqueuedWork, ModuleLoadingFollowsTheDriversReading) {
  EXPECT_EQ(ModuleLoading::Lazy, module_loading_from_environment(nullptr));
  EXPECT_EQ(ModuleLoading::Lazy, module_loading_from_environment("LAZY"));
  EXPECT_EQ(ModuleLoading::Eager, module_loading_from_environment("EAGER"));
}

TEST(EnqueuedWorkErrors, BadValueNamesCellAndLine) {
  std::string text = to_json(lazy_first_launch_waits());
  const std::string needle = "\"cuLaunchKernel#first-library-kernel\": \"work-waits\"";
  const int line = line_of(text, needle);
  text.replace(text.find(needle), needle.size(), "\"cuLaunchKernel#first-library-kernel\": \"sometimes\"");
  EXPECT_EQ("test.json:" + std::to_string(line) + ": " + kWorkKey +
                ".lazy.cuLaunchKernel#first-library-kernel must be one of: proceeds, work-waits, call-blocks",
            error_for(text));
}

TEST(EnqueuedWorkErrors, UnknownCellAndModeAreNamed) {
  const std::string good = to_json(lazy_first_launch_waits());
  std::string cell = good;
  cell.replace(cell.find("\"cuMemsetD8Async\""), 17, "\"cuMemsetD16Async\"");
  EXPECT_EQ("test.json:" + std::to_string(line_of(cell, "cuMemsetD16Async")) + ": unknown cell 'cuMemsetD16Async' in " +
                kWorkKey + ".eager",
            error_for(cell));
  std::string mode = good;
  mode.replace(mode.find("\"eager\": {"), 10, "\"eagre\": {");
  EXPECT_EQ("test.json:" + std::to_string(line_of(mode, "eagre")) + ": unknown loading mode 'eagre' in " + kWorkKey +
                " (lazy, eager)",
            error_for(mode));
}

// The runtime's cell came after the first /2 profiles: one that lacks it gets the /1 reading of it
// (the runtime call is in no call table, so it proceeds) and lists it as unmeasured; one that has it
// keeps its value.
TEST(EnqueuedWork, AProfileWithoutTheRuntimeCellDerivesIt) {
  const char* const kRuntimeCell = "cudaLaunchKernel#first-runtime-kernel";
  DriverProfile profile = lazy_first_launch_waits();
  profile.enqueued_work[ModuleLoading::Eager][kRuntimeCell] = WorkBehaviour::CallBlocks;
  std::string text = to_json(profile);
  const DriverProfile kept = parse_driver_profile(text, "kept.json");
  EXPECT_EQ(kept.work(ModuleLoading::Eager, kRuntimeCell), WorkBehaviour::CallBlocks);
  EXPECT_TRUE(kept.unmeasured.empty());
  const std::size_t at = text.find(std::string("      \"") + kRuntimeCell);
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) + 1 - at);
  text.erase(text.rfind(',', at), 1);  // the cell was its mode's last: the line before it ends the object now
  const DriverProfile derived = parse_driver_profile(text, "derived.json");
  EXPECT_EQ(derived.work(ModuleLoading::Eager, kRuntimeCell), WorkBehaviour::Proceeds);
  EXPECT_EQ(derived.work(ModuleLoading::Lazy, kRuntimeCell), kept.work(ModuleLoading::Lazy, kRuntimeCell));
  EXPECT_EQ(derived.unmeasured, std::vector<std::string>{std::string(kWorkKey) + ".eager." + kRuntimeCell});
  // Written again, the derived cell is in the file, and read once more it is listed once.
  EXPECT_EQ(parse_driver_profile(to_json(derived), "again.json").unmeasured, derived.unmeasured);
}

TEST(EnqueuedWorkErrors, MissingCellAndMissingTableAreNamed) {
  const std::string good = to_json(lazy_first_launch_waits());
  std::string cell = good;
  const std::size_t at = cell.find("      \"cuEventRecord\": ", cell.find("\"lazy\": {"));
  cell.erase(at, cell.find('\n', at) + 1 - at);
  EXPECT_NE(std::string::npos, error_for(cell).find(": missing cell 'cuEventRecord' in " + std::string(kWorkKey) + ".lazy"))
      << error_for(cell);
  std::string table = good;
  table.replace(table.find(kWorkKey), std::string(kWorkKey).size(), "enqueued_work");
  EXPECT_NE(std::string::npos, error_for(table).find(": unknown key 'enqueued_work' in profile")) << error_for(table);
}

TEST(EnqueuedWorkErrors, VersionOneProfileMayNotCarryTheTable) {
  std::string text = to_json(lazy_first_launch_waits());
  text.replace(text.find(kDriverProfileSchema), std::string(kDriverProfileSchema).size(), kDriverProfileSchemaV1);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, kWorkKey)) + ": unknown key '" + kWorkKey + "' in profile",
            error_for(text));
}

}  // namespace
}  // namespace gilsan
