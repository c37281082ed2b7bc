// The enqueued-work matrix without a driver: every cell has its recipe, case subjects round trip, and
// what the parent concludes from a case's report lines.
#include "harness/probe/work_matrix.h"

#include <gtest/gtest.h>

namespace gilsan::probe {
namespace {

CaseResult reported(std::initializer_list<const char*> lines) {
  CaseResult result;
  result.label = "test";
  for (const char* line : lines) result.lines.push_back(*parse_case_line(line));
  result.exit_code = 0;
  return result;
}

TEST(WorkMatrix, EveryCellHasARecipeOfItsEntryPoint) {
  ASSERT_EQ(work_cell_recipes().size(), enqueued_work_cells().size());
  for (const WorkCellRecipe& entry : work_cell_recipes()) {
    EXPECT_EQ(entry.recipe->entry_point, entry.cell->entry_point) << entry.cell->name;
    EXPECT_EQ(entry.recipe->dependency, Dependency::None) << entry.cell->name;
  }
  // The warm launch is the recipe that launched the function before; a first use is not.
  EXPECT_EQ(parse_work_case_subject("lazy/cuLaunchKernel").cell->recipe->id, "cuLaunchKernel#later");
  EXPECT_EQ(parse_work_case_subject("eager/cuLaunchKernel#first-module-function").cell->recipe->id, "cuLaunchKernel");
}

TEST(WorkMatrix, SubjectsRoundTripAndBadOnesAreRefused) {
  const WorkCaseSubject subject = parse_work_case_subject(work_case_subject(ModuleLoading::Eager, "cuKernelGetFunction#first"));
  EXPECT_EQ(subject.mode, ModuleLoading::Eager);
  EXPECT_EQ(subject.cell->cell->name, "cuKernelGetFunction#first");
  EXPECT_THROW(parse_work_case_subject("cuLaunchKernel"), std::invalid_argument);
  EXPECT_THROW(parse_work_case_subject("sleepy/cuLaunchKernel"), std::invalid_argument);
  EXPECT_THROW(parse_work_case_subject("lazy/cuMemAlloc"), std::invalid_argument);
}

TEST(WorkInterpretation, CallAndWorkBothDoneWhileHeldProceeds) {
  auto o = interpret_work_case(reported({"host-function-running", "call-started", "call-returned 0 CUDA_SUCCESS 12",
                                         "work-completed 40"}));
  EXPECT_EQ(o.observation, WorkObservation::Proceeded);
  EXPECT_EQ(work_verdict(o), WorkBehaviour::Proceeds);
  EXPECT_EQ(o.work_microseconds, 40);
}

TEST(WorkInterpretation, WorkDoneOnlyAfterReleaseWaits) {
  auto o = interpret_work_case(reported({"host-function-running", "call-started", "call-returned 0 CUDA_SUCCESS 12",
                                         "work-waited 2000", "deadline 40000", "released", "work-completed 2000300"}));
  EXPECT_EQ(o.observation, WorkObservation::WorkWaited);
  EXPECT_EQ(work_verdict(o), WorkBehaviour::WorkWaits);
}

TEST(WorkInterpretation, CallReturningOnlyAfterReleaseBlocks) {
  auto o = interpret_work_case(reported({"host-function-running", "call-started", "held-back 2000", "deadline 40000",
                                         "released", "call-returned 0 CUDA_SUCCESS 2000100"}));
  EXPECT_EQ(o.observation, WorkObservation::CallHeldBack);
  EXPECT_EQ(work_verdict(o), WorkBehaviour::CallBlocks);
}

TEST(WorkInterpretation, FailuresAndUnfinishedWorkDecideNothing) {
  auto failed = interpret_work_case(reported({"host-function-running", "call-started", "call-returned 500 CUDA_ERROR_NOT_FOUND 3"}));
  EXPECT_EQ(work_verdict(failed), std::nullopt);
  EXPECT_NE(failed.problem.find("CUDA_ERROR_NOT_FOUND"), std::string::npos) << failed.problem;
  auto stuck = interpret_work_case(reported({"host-function-running", "call-started", "call-returned 0 CUDA_SUCCESS 3",
                                             "work-waited 2000", "deadline 40000", "released"}));
  EXPECT_EQ(stuck.observation, WorkObservation::NeverCompleted);
  EXPECT_EQ(work_verdict(stuck), std::nullopt);
  auto setup = interpret_work_case(reported({"setup-failed CUDA_ERROR_INVALID_IMAGE cuLibraryLoadData"}));
  EXPECT_EQ(work_verdict(setup), std::nullopt);
  EXPECT_FALSE(setup.problem.empty());
}

}  // namespace
}  // namespace gilsan::probe
