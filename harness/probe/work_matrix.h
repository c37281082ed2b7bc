// The enqueued-work matrix: both halves of an enqueuing call made from another thread while a host
// function of the same context is held on S1. Does the call return, and does the work it enqueued on
// S2 complete (S2 drains) while the host function is still held? Each cell (enqueued_work.h) runs in
// a process of its own under CUDA_MODULE_LOADING=LAZY and under =EAGER, so a first use of a kernel is
// really the first in its context, and the loading mode is the driver's from its start.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/probe/call_recipe.h"
#include "harness/probe/case_process.h"
#include "harness/probe/case_protocol.h"
#include "harness/probe/probe_timeouts.h"
#include "harness/profile/enqueued_work.h"

namespace gilsan::probe {

// A cell of the profile's enqueued-work table and the recipe (call_recipes()) that measures it.
struct WorkCellRecipe {
  const EnqueuedWorkCell* cell = nullptr;
  const CallRecipe* recipe = nullptr;
};
// One per cell, in enqueued_work_cells() order. Throws std::logic_error when a cell has no recipe.
const std::vector<WorkCellRecipe>& work_cell_recipes();

// The case subject "MODE/CELL" ("lazy/cuLaunchKernel#first-module-function") and back.
std::string work_case_subject(ModuleLoading mode, const std::string& cell);
struct WorkCaseSubject {
  ModuleLoading mode = ModuleLoading::Lazy;
  const WorkCellRecipe* cell = nullptr;
};
// Throws std::invalid_argument for an unknown mode or cell.
WorkCaseSubject parse_work_case_subject(const std::string& subject);

// Child side: sets CUDA_MODULE_LOADING before the driver is opened (the caller opens it afterwards).
void select_module_loading(ModuleLoading mode);
// Child side: measures the cell and reports it. Throws SetupFailure.
void run_work_case(const ProbeFixture& fixture, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                   const CaseReporter& reporter);

enum class WorkObservation {
  Proceeded,     // the call returned and S2 drained, both while the host function was held
  WorkWaited,    // the call returned while it was held; S2 drained only after it was released
  CallHeldBack,  // the call returned only after the host function was released
  NeverCompleted,
  NotMeasured,
};

struct WorkOutcome {
  WorkObservation observation = WorkObservation::NotMeasured;
  std::optional<ResultCode> code;  // the measured call's result
  long long call_microseconds = 0;
  long long work_microseconds = 0;  // from the call's return until S2 drained
  std::string problem;              // for NeverCompleted and NotMeasured
};

WorkOutcome interpret_work_case(const CaseResult& result);
std::optional<WorkBehaviour> work_verdict(const WorkOutcome& outcome);
const char* describe(WorkObservation observation);

}  // namespace gilsan::probe
