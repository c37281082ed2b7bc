// The call tables under CUDA_MODULE_LOADING=EAGER: eager_call_overrides as measured (read, written,
// applied), derived from the enqueued-work cells when a profile predates them, and errors that name
// the line and the key.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/profile/driver_profile.h"
#include "tests/profile/profile_error_text.h"

namespace gilsan {
namespace {

DriverProfile shipped_profile() { return load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH); }

// A profile whose cells say nothing differs between the modes, so that each test sets the
// difference it is about.
DriverProfile same_in_both_modes() {
  DriverProfile profile = shipped_profile();
  profile.eager_call_overrides.reset();
  profile.enqueued_work[ModuleLoading::Eager] = profile.enqueued_work.at(ModuleLoading::Lazy);
  return profile;
}

TEST(EagerCallOverrides, WithoutTheKeyTheCellsThatDifferByModeGiveTheEagerCallTable) {
  DriverProfile profile = same_in_both_modes();
  profile.while_host_function_runs["cuLibraryLoadData"] = OutsideBehaviour::Returns;
  profile.while_host_function_runs["cuKernelGetFunction"] = OutsideBehaviour::Blocks;
  profile.enqueued_work[ModuleLoading::Lazy]["cuLibraryLoadData"] = WorkBehaviour::Proceeds;
  profile.enqueued_work[ModuleLoading::Eager]["cuLibraryLoadData"] = WorkBehaviour::CallBlocks;
  profile.enqueued_work[ModuleLoading::Lazy]["cuKernelGetFunction#first"] = WorkBehaviour::CallBlocks;
  profile.enqueued_work[ModuleLoading::Eager]["cuKernelGetFunction#first"] = WorkBehaviour::Proceeds;
  // A work-waits cell's call returns: not a difference of the call table.
  profile.enqueued_work[ModuleLoading::Eager]["cuMemsetD8Async"] = WorkBehaviour::WorkWaits;
  // The first launch of a library kernel does not decide cuLaunchKernel's call table.
  profile.enqueued_work[ModuleLoading::Eager]["cuLaunchKernel#first-library-kernel"] = WorkBehaviour::CallBlocks;

  const CallTableOverrides derived = profile.eager_overrides();
  EXPECT_TRUE(derived.inside_host_function.empty());
  EXPECT_EQ(derived.while_host_function_runs,
            (std::map<std::string, OutsideBehaviour>{{"cuKernelGetFunction", OutsideBehaviour::Returns},
                                                     {"cuLibraryLoadData", OutsideBehaviour::Blocks}}));
  EXPECT_EQ(profile.outside(ModuleLoading::Eager, "cuLibraryLoadData"), OutsideBehaviour::Blocks);
  EXPECT_EQ(profile.outside(ModuleLoading::Lazy, "cuLibraryLoadData"), OutsideBehaviour::Returns);
  EXPECT_EQ(profile.outside(ModuleLoading::Eager, "cuLaunchKernel"), profile.outside("cuLaunchKernel"));
  // Derived, not measured: nothing is written for it.
  EXPECT_EQ(to_json(profile).find("\"eager_call_overrides\":"), std::string::npos);
}

TEST(EagerCallOverrides, ALazyCellThatDisagreesWithTheCallTableIsNoDifferenceBetweenModes) {
  DriverProfile profile = same_in_both_modes();
  profile.while_host_function_runs["cuEventRecord"] = OutsideBehaviour::Blocks;
  profile.enqueued_work[ModuleLoading::Lazy]["cuEventRecord"] = WorkBehaviour::Proceeds;
  profile.enqueued_work[ModuleLoading::Eager]["cuEventRecord"] = WorkBehaviour::Proceeds;
  EXPECT_TRUE(profile.eager_overrides().while_host_function_runs.empty());
  EXPECT_EQ(profile.outside(ModuleLoading::Eager, "cuEventRecord"), OutsideBehaviour::Blocks);
}

TEST(EagerCallOverrides, MeasuredOverridesRoundTripAndReplaceTheDerivedOnes) {
  DriverProfile profile = same_in_both_modes();
  profile.enqueued_work[ModuleLoading::Eager]["cuLibraryLoadData"] = WorkBehaviour::CallBlocks;
  profile.enqueued_work[ModuleLoading::Lazy]["cuLibraryLoadData"] = WorkBehaviour::Proceeds;
  profile.while_host_function_runs["cuLibraryLoadData"] = OutsideBehaviour::Returns;
  const InsideBehaviour lazy_alloc = profile.inside("cuMemAlloc");
  const InsideBehaviour other =
      lazy_alloc == InsideBehaviour::Allowed ? InsideBehaviour::NotPermitted : InsideBehaviour::Allowed;
  profile.eager_call_overrides = CallTableOverrides{{{"cuMemAlloc", other}}, {{"cuMemFree", OutsideBehaviour::Returns}}};
  profile.unmeasured.push_back("eager_call_overrides.while_host_function_runs.cuCtxSynchronize");

  const DriverProfile again = parse_driver_profile(to_json(profile), "round-trip");
  EXPECT_EQ(again.eager_call_overrides, profile.eager_call_overrides);
  EXPECT_EQ(again.unmeasured, profile.unmeasured);
  EXPECT_TRUE(again.same_behaviour(profile));
  EXPECT_EQ(to_json(again), to_json(profile));
  EXPECT_EQ(again.inside(ModuleLoading::Eager, "cuMemAlloc"), other);
  EXPECT_EQ(again.inside(ModuleLoading::Lazy, "cuMemAlloc"), lazy_alloc);
  EXPECT_EQ(again.outside(ModuleLoading::Eager, "cuMemFree"), OutsideBehaviour::Returns);
  // Measured: the cells' difference no longer decides cuLibraryLoadData under EAGER.
  EXPECT_EQ(again.outside(ModuleLoading::Eager, "cuLibraryLoadData"), OutsideBehaviour::Returns);
}

TEST(EagerCallOverrides, AnEmptyMeasurementIsKeptApartFromNone) {
  DriverProfile profile = same_in_both_modes();
  profile.eager_call_overrides = CallTableOverrides{};
  const std::string text = to_json(profile);
  EXPECT_NE(text.find("\"eager_call_overrides\": {\n    \"inside_host_function\": {},\n"
                      "    \"while_host_function_runs\": {}\n  }"),
            std::string::npos)
      << text;
  EXPECT_TRUE(parse_driver_profile(text, "empty").eager_call_overrides.has_value());
  // Same behaviour as the profile without the key, whose cells imply no difference either.
  DriverProfile without = profile;
  without.eager_call_overrides.reset();
  EXPECT_TRUE(without.same_behaviour(profile));
}

TEST(EagerCallOverrides, MeasuredAndDerivedTablesThatDifferAreDifferentBehaviour) {
  DriverProfile derived = same_in_both_modes();
  derived.enqueued_work[ModuleLoading::Eager]["cuModuleLoadData"] =
      derived.enqueued_work.at(ModuleLoading::Lazy).at("cuModuleLoadData") == WorkBehaviour::CallBlocks
          ? WorkBehaviour::Proceeds
          : WorkBehaviour::CallBlocks;
  ASSERT_FALSE(derived.eager_overrides().while_host_function_runs.empty());
  DriverProfile measured = derived;
  measured.eager_call_overrides = CallTableOverrides{};
  EXPECT_FALSE(measured.same_behaviour(derived));
}

// The shipped profile's text with `overrides` (a JSON object's text) as its eager_call_overrides: the
// shipped one's own overrides (measured) are taken out first, so that the key appears once.
std::string with_overrides(const std::string& overrides) {
  DriverProfile profile = shipped_profile();
  profile.eager_call_overrides.reset();
  std::erase_if(profile.unmeasured, [](const std::string& cell) { return cell.starts_with("eager_call_overrides."); });
  std::string text = to_json(profile);
  return text.insert(text.find('{') + 1, "\n  \"eager_call_overrides\": " + overrides + ",");
}

TEST(EagerCallOverrides, ErrorsNameTheLineAndTheKey) {
  EXPECT_EQ(error_for(with_overrides("{\"inside_host_function\": {},\n \"while_host_function_runs\": {\"cuFoo\": \"blocks\"}}")),
            "test.json:3: unknown entry point 'cuFoo' in eager_call_overrides.while_host_function_runs");
  EXPECT_EQ(error_for(with_overrides("{\"inside_host_function\": {\"cuMemAlloc\": \"blocks\"},\n"
                                     " \"while_host_function_runs\": {}}")),
            "test.json:2: eager_call_overrides.inside_host_function.cuMemAlloc must be one of: allowed, hangs, "
            "not-permitted");
  EXPECT_EQ(error_for(with_overrides("{\"inside_host_function\": {}}")),
            "test.json:2: missing key 'while_host_function_runs' in eager_call_overrides");
  EXPECT_EQ(error_for(with_overrides("{\"inside_host_function\": {}, \"while_host_function_runs\": {},\n \"lazy\": {}}")),
            "test.json:3: unknown key 'lazy' in eager_call_overrides");
  EXPECT_EQ(error_for(with_overrides("[]")), "test.json:2: eager_call_overrides must be an object");
}

TEST(EagerCallOverrides, AVersionOneProfileMayNotCarryThem) {
  std::ifstream in(GILSAN_PROFILE_V1_FIXTURE);
  std::stringstream text;
  text << in.rdbuf();
  std::string profile = text.str();
  profile.insert(profile.find('{') + 1,
                 "\n  \"eager_call_overrides\": {\"inside_host_function\": {}, \"while_host_function_runs\": {}},");
  EXPECT_EQ(error_for(profile), "test.json:2: unknown key 'eager_call_overrides' in profile");
}

}  // namespace
}  // namespace gilsan
