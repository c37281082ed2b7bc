// From hand-made evidence to a profile: verdicts, the most restrictive variant, unmeasured cells and
// where their values come from.
#include "harness/probe/profile_assembly.h"

#include <gtest/gtest.h>

#include "tests/probe/profile_fixtures.h"

namespace gilsan::probe {
namespace {

using namespace probe::testing;

// Every recipe allowed inside and returning outside; the topology fully measured.
ProbeEvidence plain_evidence() {
  ProbeEvidence e;
  e.origin.gpu = "test GPU";
  e.origin.method = "gilsan probe";
  e.recipes = every_recipe_harmless();
  for (ModuleLoading mode : module_loading_modes())
    for (const WorkCellRecipe& cell : work_cell_recipes())
      e.work.push_back({mode, &cell, work(WorkObservation::Proceeded)});
  e.topology.callback_thread = CallbackThreadScope::PerContext;
  e.topology.streams_concurrent = false;
  e.topology.enqueue_measured = true;
  return e;
}

TEST(ProfileAssembly, EveryCellMeasuredGivesAnEmptyUnmeasuredList) {
  AssembledProfile a = assemble_profile(plain_evidence(), nullptr);
  EXPECT_TRUE(a.profile.unmeasured.empty());
  EXPECT_EQ(a.profile.inside_host_function.size(), profiled_entry_points().size());
  EXPECT_EQ(a.profile.while_host_function_runs.size(), profiled_entry_points().size());
  EXPECT_EQ(a.profile.inside("cuMemAlloc"), InsideBehaviour::Allowed);
  EXPECT_EQ(a.profile.topology.callback_thread, CallbackThreadScope::PerContext);
  EXPECT_TRUE(a.profile.topology.serialized_across_streams);
  EXPECT_FALSE(a.profile.topology.enqueue_blocks_at_depth.has_value());
  // The assembled profile is a valid profile.
  EXPECT_TRUE(parse_driver_profile(to_json(a.profile), "assembled").same_behaviour(a.profile));
}

TEST(ProfileAssembly, AnEntryPointTakesTheMostRestrictiveOfItsRecipes) {
  ProbeEvidence e = plain_evidence();
  evidence_of(e, "cuLaunchKernel#later").inside = inside_returned(800, "CUDA_ERROR_NOT_PERMITTED");
  evidence_of(e, "cuLaunchKernel#later").outside = outside(OutsideObservation::HeldBack);
  evidence_of(e, "cuStreamQuery#own-stream").inside.observation = InsideObservation::NoReturn;
  AssembledProfile a = assemble_profile(e, nullptr);
  EXPECT_EQ(a.profile.inside("cuLaunchKernel"), InsideBehaviour::NotPermitted);
  EXPECT_EQ(a.profile.outside("cuLaunchKernel"), OutsideBehaviour::Blocks);
  EXPECT_EQ(a.profile.inside("cuStreamQuery"), InsideBehaviour::Hangs);
  EXPECT_TRUE(a.profile.unmeasured.empty());
}

TEST(ProfileAssembly, ADataDependencyAloneDecidesNothingAndTheCarryOverFillsIn) {
  ProbeEvidence e = plain_evidence();
  e.carried_over_from = "old.json";
  evidence_of(e, "cuCtxSynchronize").outside = outside(OutsideObservation::WaitedForHostFunction);
  evidence_of(e, "cuCtxSynchronize").inside.observation = InsideObservation::WaitedForHostFunction;
  // cuStreamSynchronize's own-stream variant waits for itself, but its main recipe decides.
  evidence_of(e, "cuStreamSynchronize#own-stream").inside.observation = InsideObservation::WaitedForHostFunction;

  AssembledProfile assumed = assemble_profile(e, nullptr);
  EXPECT_EQ(assumed.profile.outside("cuCtxSynchronize"), OutsideBehaviour::Returns);
  EXPECT_EQ(assumed.profile.inside("cuCtxSynchronize"), InsideBehaviour::Allowed);
  EXPECT_TRUE(listed(assumed.profile, "while_host_function_runs.cuCtxSynchronize"));
  EXPECT_TRUE(listed(assumed.profile, "inside_host_function.cuCtxSynchronize"));
  EXPECT_EQ(assumed.profile.unmeasured.size(), 2u);
  EXPECT_NE(assumed.unmeasured_because["while_host_function_runs.cuCtxSynchronize"].find("by its nature"),
            std::string::npos);

  DriverProfile old = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  old.while_host_function_runs["cuCtxSynchronize"] = OutsideBehaviour::Blocks;
  old.inside_host_function["cuCtxSynchronize"] = InsideBehaviour::Hangs;
  AssembledProfile carried = assemble_profile(e, &old);
  EXPECT_EQ(carried.profile.outside("cuCtxSynchronize"), OutsideBehaviour::Blocks);
  EXPECT_EQ(carried.profile.inside("cuCtxSynchronize"), InsideBehaviour::Hangs);
  EXPECT_NE(carried.unmeasured_because["inside_host_function.cuCtxSynchronize"].find("carried over from old.json"),
            std::string::npos);
  EXPECT_EQ(carried.profile.inside("cuStreamSynchronize"), InsideBehaviour::Allowed);
}

TEST(ProfileAssembly, UnmeasuredTopologyComesFromTheCarryOver) {
  ProbeEvidence e = plain_evidence();
  e.topology.callback_thread.reset();
  e.topology.callback_thread_note = "one device";
  e.topology.enqueue_measured = false;
  e.topology.enqueue_problem = "the case crashed";
  DriverProfile old = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  old.topology.callback_thread = CallbackThreadScope::PerProcess;
  old.topology.enqueue_blocks_at_depth = 16;
  AssembledProfile a = assemble_profile(e, &old);
  EXPECT_EQ(a.profile.topology.callback_thread, CallbackThreadScope::PerProcess);
  EXPECT_EQ(a.profile.topology.enqueue_blocks_at_depth, 16);
  EXPECT_TRUE(listed(a.profile, "topology.callback_thread"));
  EXPECT_TRUE(listed(a.profile, "topology.enqueue_blocks_at_depth"));
  EXPECT_FALSE(listed(a.profile, "topology.serialized_across_streams"));
}

}  // namespace
}  // namespace gilsan::probe

namespace gilsan::probe {
namespace {

TEST(ProfileAssembly, EnqueuedWorkCellsTakeTheirModesVerdicts) {
  ProbeEvidence e = plain_evidence();
  work_evidence_of(e, ModuleLoading::Lazy, "cuLaunchKernel#first-library-kernel").outcome =
      work(WorkObservation::WorkWaited);
  work_evidence_of(e, ModuleLoading::Lazy, "cuKernelGetFunction#first").outcome = work(WorkObservation::CallHeldBack);
  AssembledProfile a = assemble_profile(e, nullptr);
  EXPECT_EQ(a.profile.work(ModuleLoading::Lazy, "cuLaunchKernel#first-library-kernel"), WorkBehaviour::WorkWaits);
  EXPECT_EQ(a.profile.work(ModuleLoading::Lazy, "cuKernelGetFunction#first"), WorkBehaviour::CallBlocks);
  EXPECT_EQ(a.profile.work(ModuleLoading::Eager, "cuLaunchKernel#first-library-kernel"), WorkBehaviour::Proceeds);
  EXPECT_EQ(a.profile.work(ModuleLoading::Lazy, "cuLaunchKernel"), WorkBehaviour::Proceeds);
  EXPECT_TRUE(a.profile.unmeasured.empty());
}

TEST(ProfileAssembly, AnUndecidedEnqueuedWorkCellIsCarriedOverOrDerivedFromItsCall) {
  ProbeEvidence e = plain_evidence();
  e.carried_over_from = "old.json";
  WorkOutcome failed = work(WorkObservation::NotMeasured);
  failed.problem = "setup failed";
  work_evidence_of(e, ModuleLoading::Eager, "cuLibraryLoadData").outcome = failed;
  evidence_of(e, "cuLibraryLoadData").outside = outside(OutsideObservation::HeldBack);

  AssembledProfile derived = assemble_profile(e, nullptr);
  const std::string cell = "enqueued_work_while_host_function_runs.eager.cuLibraryLoadData";
  EXPECT_EQ(derived.profile.work(ModuleLoading::Eager, "cuLibraryLoadData"), WorkBehaviour::CallBlocks);
  EXPECT_TRUE(listed(derived.profile, cell));
  EXPECT_EQ(derived.profile.unmeasured.size(), 1u);
  EXPECT_NE(derived.unmeasured_because[cell].find("setup failed"), std::string::npos);

  DriverProfile old = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  old.enqueued_work[ModuleLoading::Eager]["cuLibraryLoadData"] = WorkBehaviour::WorkWaits;
  AssembledProfile carried = assemble_profile(e, &old);
  EXPECT_EQ(carried.profile.work(ModuleLoading::Eager, "cuLibraryLoadData"), WorkBehaviour::WorkWaits);
  EXPECT_NE(carried.unmeasured_because[cell].find("carried over from old.json"), std::string::npos);
}

}  // namespace
}  // namespace gilsan::probe
