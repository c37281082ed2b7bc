// Profiles older than the driver table: every profile gilsan ever wrote loads, an entry point it does
// not list is unmeasured (the answers the probe assumes) and said once per process on stderr, and what
// is malformed (half an entry point, a name the table does not know) stays an error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "harness/profile/absent_entry_points.h"
#include "harness/profile/driver_profile.h"
#include "tests/profile/file_text.h"
#include "tests/profile/profile_error_text.h"

namespace gilsan {
namespace {

namespace fs = std::filesystem;

// What the driver table gained after the first release wrote its profile (commit 9de6920), by name.
const std::vector<std::string> kAddedSinceFirstRelease = {
    "cuCtxGetStreamPriorityRange", "cuDeviceGetMemPool", "cuDeviceGetUuid",
    "cuDeviceSetMemPool", "cuGraphAddChildGraphNode", "cuGraphAddDependencies",
    "cuGraphAddEventRecordNode", "cuGraphAddEventWaitNode", "cuGraphAddMemAllocNode",
    "cuGraphAddMemFreeNode", "cuGraphAddMemsetNode", "cuGraphAddNode",
    "cuGraphChildGraphNodeGetGraph", "cuGraphClone", "cuGraphConditionalHandleCreate",
    "cuGraphDestroyNode", "cuGraphGetEdges", "cuGraphGetNodes",
    "cuGraphGetRootNodes", "cuGraphHostNodeGetParams", "cuGraphInstantiateWithParams",
    "cuGraphMemAllocNodeGetParams", "cuGraphNodeFindInClone", "cuGraphNodeGetDependencies",
    "cuGraphNodeGetDependentNodes", "cuGraphNodeGetType", "cuGraphRemoveDependencies",
    "cuLaunchKernelEx", "cuMemPoolCreate", "cuMemPoolDestroy",
    "cuMemPoolGetAttribute", "cuMemPoolSetAttribute", "cuPointerGetAttribute",
    "cuPointerGetAttributes", "cuStreamBeginCaptureToGraph", "cuStreamGetPriority",
    "cuStreamUpdateCaptureDependencies"};

std::string first_release_text() { return profile_fixtures::file_text(GILSAN_PROFILE_9DE6920_FIXTURE); }

bool listed(const std::vector<std::string>& cells, const std::string& cell) {
  return std::find(cells.begin(), cells.end(), cell) != cells.end();
}

// Copies of the first release's profile under names of their own: load_driver_profile says what a
// file lacks once per process, so each test that watches it reads files no other test read.
class Copies {
 public:
  Copies() : folder_(fs::temp_directory_path() / ("gilsan-older-profiles-" + std::to_string(::getpid()))) {
    fs::create_directories(folder_);
  }
  ~Copies() { fs::remove_all(folder_); }
  fs::path fresh(const std::string& name) const {
    const fs::path path = folder_ / (name + ".json");
    std::ofstream(path) << first_release_text();
    return path;
  }

 private:
  fs::path folder_;
};

// What load_driver_profile(path) wrote on stderr.
std::string stderr_of_loading(const std::string& path) {
  testing::internal::CaptureStderr();
  load_driver_profile(path);
  return testing::internal::GetCapturedStderr();
}

std::string expected_warning(const std::string& source) {
  std::string names;
  for (const std::string& entry : kAddedSinceFirstRelease) names += (names.empty() ? "" : ", ") + entry;
  return "gilsan: " + source + ": " + std::to_string(kAddedSinceFirstRelease.size()) +
         " entry points unmeasured (not in this profile): " + names;
}

TEST(OlderProfiles, TheFirstReleasesProfileLoadsWithWhatItLacksUnmeasured) {
  const DriverProfile profile = parse_driver_profile(first_release_text(), "old.json");
  std::vector<std::string> absent = profile.absent_entry_points;
  std::sort(absent.begin(), absent.end());
  EXPECT_EQ(absent, kAddedSinceFirstRelease);
  for (const std::string& entry : kAddedSinceFirstRelease) {
    EXPECT_EQ(profile.inside(entry), InsideBehaviour::Allowed) << entry;
    EXPECT_EQ(profile.outside(entry), OutsideBehaviour::Returns) << entry;
    EXPECT_TRUE(listed(profile.unmeasured, "inside_host_function." + entry)) << entry;
    EXPECT_TRUE(listed(profile.unmeasured, "while_host_function_runs." + entry)) << entry;
    // Its tables were not measured under EAGER: the answers are the lazy ones, already unmeasured.
    EXPECT_FALSE(listed(profile.unmeasured, "eager_call_overrides.inside_host_function." + entry)) << entry;
  }
  // What it does list is read as written, its own unmeasured cells first.
  EXPECT_EQ(profile.inside("cuCtxSynchronize"), InsideBehaviour::NotPermitted);
  EXPECT_EQ(profile.outside("cuMemAlloc"), OutsideBehaviour::Blocks);
  EXPECT_EQ(profile.unmeasured.front(), "inside_host_function.cuInit");
  EXPECT_EQ(profile.origin.date, "2026-12-02");
}

TEST(OlderProfiles, TheLineNamesTheFileAndEveryEntryPointItLacks) {
  EXPECT_EQ(absent_entry_points_warning(parse_driver_profile(first_release_text(), "old.json"), "old.json"),
            expected_warning("old.json"));
  const DriverProfile shipped = parse_driver_profile(profile_fixtures::file_text(GILSAN_DEFAULT_PROFILE_PATH), "shipped");
  EXPECT_EQ(absent_entry_points_warning(shipped, "shipped"), "");
}

TEST(OlderProfiles, LoadingSaysItOncePerProcessAndFileOnStderr) {
  const Copies copies;
  const fs::path path = copies.fresh("once");
  EXPECT_EQ(stderr_of_loading(path.string()), expected_warning(path.string()) + "\n");
  // The runner reads --profile as given, then by another name of the same file.
  const std::string other_name = (path.parent_path() / "." / path.filename()).string();
  EXPECT_EQ(stderr_of_loading(other_name), "");
  EXPECT_EQ(stderr_of_loading(path.string()), "");
  EXPECT_EQ(stderr_of_loading(GILSAN_DEFAULT_PROFILE_PATH), "");  // lacks nothing
}

// A scenario child of gilsan run whose --profile the runner read, or a probe case child, is quiet;
// a child reading a file its starter did not read says it.
TEST(OlderProfiles, AChildLeavesTheLineToTheCommandThatReadTheFileFirst) {
  const Copies copies;
  const fs::path runner_profile = copies.fresh("runner-child");
  const fs::path probe_profile = copies.fresh("probe-child");
  const fs::path own_profile = copies.fresh("own");
  ::setenv("GILSAN_RUN_MARKER", "test-marker", 1);
  ::setenv("GILSAN_SIM_PROFILE", runner_profile.c_str(), 1);
  ::setenv(kProfileWarnedVariable, probe_profile.c_str(), 1);
  const std::string runner_child = stderr_of_loading(runner_profile.string());
  const std::string probe_child = stderr_of_loading(probe_profile.string());
  const std::string own = stderr_of_loading(own_profile.string());
  ::unsetenv("GILSAN_RUN_MARKER");
  ::unsetenv("GILSAN_SIM_PROFILE");
  ::unsetenv(kProfileWarnedVariable);
  EXPECT_EQ(runner_child, "");
  EXPECT_EQ(probe_child, "");
  EXPECT_EQ(own, expected_warning(own_profile.string()) + "\n");
  // Without the run marker, $GILSAN_SIM_PROFILE alone is a user's setting: the reader says it.
  const fs::path plain = copies.fresh("plain");
  ::setenv("GILSAN_SIM_PROFILE", plain.c_str(), 1);
  const std::string plain_process = stderr_of_loading(plain.string());
  ::unsetenv("GILSAN_SIM_PROFILE");
  EXPECT_EQ(plain_process, expected_warning(plain.string()) + "\n");
}

TEST(OlderProfiles, WrittenAgainItListsEveryEntryPointStillUnmeasured) {
  const DriverProfile old = parse_driver_profile(first_release_text(), "old.json");
  const DriverProfile again = parse_driver_profile(to_json(old), "again.json");
  EXPECT_TRUE(again.absent_entry_points.empty());
  EXPECT_TRUE(again.same_behaviour(old));
  EXPECT_EQ(again.unmeasured, old.unmeasured);
}

// A profile with measured EAGER tables says nothing of an entry point it lacks under EAGER either.
TEST(OlderProfiles, AProfileWithMeasuredEagerTablesLacksTheirCellsToo) {
  DriverProfile shipped = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  ASSERT_TRUE(shipped.eager_call_overrides.has_value());
  shipped.inside_host_function.erase("cuDeviceGetUuid");
  shipped.while_host_function_runs.erase("cuDeviceGetUuid");
  const DriverProfile older = parse_driver_profile(to_json(shipped), "older.json");
  EXPECT_EQ(older.absent_entry_points, std::vector<std::string>{"cuDeviceGetUuid"});
  for (const char* cell : {"inside_host_function.cuDeviceGetUuid", "while_host_function_runs.cuDeviceGetUuid",
                           "eager_call_overrides.inside_host_function.cuDeviceGetUuid",
                           "eager_call_overrides.while_host_function_runs.cuDeviceGetUuid"})
    EXPECT_TRUE(listed(older.unmeasured, cell)) << cell;
  EXPECT_EQ(older.inside(ModuleLoading::Eager, "cuDeviceGetUuid"), InsideBehaviour::Allowed);
}

// gilsan always wrote both tables alike: half an entry point is damage, not age.
TEST(OlderProfiles, AnEntryPointInOneTableOnlyIsAnErrorNamingTheOther) {
  std::string text = first_release_text();
  const std::string line = "    \"cuMemFree\": \"blocks\",\n";
  const auto at = text.find(line);
  ASSERT_NE(at, std::string::npos);
  text.erase(at, line.size());
  EXPECT_EQ(error_for(text), "test.json:" + std::to_string(line_of(text, "  \"while_host_function_runs\": {")) +
                                 ": missing entry point 'cuMemFree' in while_host_function_runs (inside_host_function "
                                 "lists it: a profile lists an entry point in both tables or in neither)");
}

// The table never lost an entry point, so no profile gilsan wrote names one it does not know: such a
// name is a misspelling (which would otherwise pass as one more unmeasured entry point) or a profile of
// a newer gilsan.
TEST(OlderProfiles, AnEntryPointTheTableDoesNotKnowIsStillAnError) {
  std::string text = first_release_text();
  const std::string entry = "    \"cuCtxCreate\": \"not-permitted\",\n";
  text.insert(text.find(entry), "    \"cuCtxCreateV9\": \"allowed\",\n");
  EXPECT_EQ(error_for(text), "test.json:" + std::to_string(line_of(text, "cuCtxCreateV9")) +
                                 ": unknown entry point 'cuCtxCreateV9' in inside_host_function");
}

// Every profile in the repository: the shipped ones, the probe's outputs kept with the results of the
// GPU runs since the first, and the fixtures (the first release's among them).
TEST(OlderProfiles, EveryProfileGilsanWroteLoads) {
  int loaded = 0;
  bool first_release = false;
  for (const char* folder : {"profiles", "docs/results", "tests/profile/fixtures"}) {
    for (const auto& file : fs::recursive_directory_iterator(fs::path(GILSAN_SOURCE_DIR) / folder)) {
      if (file.path().extension() != ".json") continue;
      const std::string text = profile_fixtures::file_text(file.path());
      if (text.find("\"schema\": \"gilsan-driver-profile/") == std::string::npos) continue;
      EXPECT_NO_THROW(parse_driver_profile(text, file.path().string())) << file.path();
      ++loaded;
      first_release = first_release || fs::equivalent(file.path(), GILSAN_PROFILE_9DE6920_FIXTURE);
    }
  }
  EXPECT_GE(loaded, 13);
  EXPECT_TRUE(first_release);
}

}  // namespace
}  // namespace gilsan
