// The call matrices under CUDA_MODULE_LOADING=EAGER, without a driver: case subjects, what the profile
// records from hand-made evidence (only the differences, unmeasured cells carried over), and --diff.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/probe/probe_case.h"
#include "harness/probe/profile_assembly.h"
#include "harness/probe/profile_diff.h"
#include "tests/probe/profile_fixtures.h"

namespace gilsan::probe {
namespace {

using namespace probe::testing;

// Every recipe allowed inside and returning outside under both modes; the rest left unmeasured.
ProbeEvidence evidence_in_both_modes() {
  ProbeEvidence e;
  e.recipes = every_recipe_harmless();
  e.eager_recipes = every_recipe_harmless();
  return e;
}

TEST(EagerCallCases, SubjectsNameTheModeOnlyUnderEager) {
  EXPECT_EQ(call_case_subject(ModuleLoading::Lazy, "cuMemAlloc"), "cuMemAlloc");
  EXPECT_EQ(call_case_subject(ModuleLoading::Eager, "cuLaunchKernel#later"), "eager/cuLaunchKernel#later");
  const CallCaseSubject eager = parse_call_case_subject("eager/cuLaunchKernel#later");
  EXPECT_EQ(eager.mode, ModuleLoading::Eager);
  EXPECT_EQ(eager.recipe_id, "cuLaunchKernel#later");
  EXPECT_EQ(parse_call_case_subject("cuMemAlloc").mode, ModuleLoading::Lazy);
  EXPECT_THROW(parse_call_case_subject("sleepy/cuMemAlloc"), std::invalid_argument);
}

TEST(EagerCallAssembly, OnlyTheCellsThatDifferBecomeOverrides) {
  ProbeEvidence e = evidence_in_both_modes();
  evidence_of(e.eager_recipes, "cuLibraryLoadData").outside = outside(OutsideObservation::HeldBack);
  evidence_of(e.eager_recipes, "cuMemAlloc").inside = inside_returned(800, "CUDA_ERROR_NOT_PERMITTED");
  evidence_of(e.recipes, "cuKernelGetFunction").outside = outside(OutsideObservation::HeldBack);
  // A first-use-only recipe decides no call table, in either mode.
  evidence_of(e.eager_recipes, "cuLaunchKernel#first-library-kernel").outside = outside(OutsideObservation::HeldBack);
  const DriverProfile p = assemble_profile(e, nullptr).profile;
  ASSERT_TRUE(p.eager_call_overrides.has_value());
  EXPECT_EQ(p.eager_call_overrides->inside_host_function,
            (std::map<std::string, InsideBehaviour>{{"cuMemAlloc", InsideBehaviour::NotPermitted}}));
  EXPECT_EQ(p.eager_call_overrides->while_host_function_runs,
            (std::map<std::string, OutsideBehaviour>{{"cuKernelGetFunction", OutsideBehaviour::Returns},
                                                     {"cuLibraryLoadData", OutsideBehaviour::Blocks}}));
  EXPECT_EQ(p.outside("cuLibraryLoadData"), OutsideBehaviour::Returns);
  EXPECT_EQ(p.outside(ModuleLoading::Eager, "cuLaunchKernel"), OutsideBehaviour::Returns);
}

TEST(EagerCallAssembly, AnUndecidedEagerCellKeepsTheCarryOversEagerAnswerElseTheLazyOne) {
  ProbeEvidence e = evidence_in_both_modes();
  evidence_of(e.eager_recipes, "cuMemFree").outside = OutsideOutcome{};  // not measured
  evidence_of(e.eager_recipes, "cuMemHostUnregister").outside = OutsideOutcome{};
  DriverProfile carry = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  carry.eager_call_overrides = CallTableOverrides{{}, {{"cuMemFree", OutsideBehaviour::Blocks}}};
  e.carried_over_from = "carry.json";

  const AssembledProfile with_carry = assemble_profile(e, &carry);
  EXPECT_EQ(with_carry.profile.outside(ModuleLoading::Eager, "cuMemFree"), OutsideBehaviour::Blocks);
  EXPECT_EQ(with_carry.profile.outside(ModuleLoading::Eager, "cuMemHostUnregister"),
            carry.outside(ModuleLoading::Eager, "cuMemHostUnregister"));
  EXPECT_TRUE(listed(with_carry.profile, "eager_call_overrides.while_host_function_runs.cuMemFree"));
  EXPECT_NE(with_carry.unmeasured_because.at("eager_call_overrides.while_host_function_runs.cuMemFree").find("carry.json"),
            std::string::npos);

  const DriverProfile without = assemble_profile(e, nullptr).profile;
  EXPECT_EQ(without.outside(ModuleLoading::Eager, "cuMemFree"), without.outside("cuMemFree"));
  EXPECT_TRUE(without.eager_call_overrides->while_host_function_runs.empty());
  EXPECT_TRUE(listed(without, "eager_call_overrides.while_host_function_runs.cuMemHostUnregister"));
}

TEST(EagerCallAssembly, EvidenceWithoutEagerCasesLeavesTheKeyOut) {
  ProbeEvidence e = evidence_in_both_modes();
  e.eager_recipes.clear();
  const DriverProfile p = assemble_profile(e, nullptr).profile;
  EXPECT_FALSE(p.eager_call_overrides.has_value());
  EXPECT_TRUE(std::none_of(p.unmeasured.begin(), p.unmeasured.end(),
                           [](const std::string& cell) { return cell.starts_with("eager_call_overrides."); }));
}

TEST(EagerCallDiff, ListsTheEagerTablesWhereTheyDifferFromLazy) {
  DriverProfile a = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  a.eager_call_overrides = CallTableOverrides{};
  DriverProfile b = a;
  b.eager_call_overrides = CallTableOverrides{{{"cuMemAlloc", InsideBehaviour::Allowed}},
                                              {{"cuMemFree", OutsideBehaviour::Returns}}};
  const std::vector<std::string> expected = {
      "eager_call_overrides.inside_host_function.cuMemAlloc: (as lazy) -> allowed",
      "eager_call_overrides.while_host_function_runs.cuMemFree: (as lazy) -> returns",
  };
  EXPECT_EQ(diff_profiles(a, b), expected);
  // A profile without the key compares by the tables its cells imply: its derived overrides.
  DriverProfile derived = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  derived.eager_call_overrides.reset();
  DriverProfile measured = derived;
  measured.eager_call_overrides = derived.eager_overrides();
  EXPECT_TRUE(diff_profiles(derived, measured).empty());
}

}  // namespace
}  // namespace gilsan::probe
