// Everything one probe run measured, kept for the profile and the markdown report.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "harness/probe/call_recipe.h"
#include "harness/probe/inside_matrix.h"
#include "harness/probe/outside_matrix.h"
#include "harness/probe/probe_timeouts.h"
#include "harness/probe/runtime_comparison.h"
#include "harness/probe/topology_probe.h"
#include "harness/probe/work_matrix.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

struct RecipeEvidence {
  const CallRecipe* recipe = nullptr;
  InsideOutcome inside;
  OutsideOutcome outside;
};

struct WorkEvidence {
  ModuleLoading mode = ModuleLoading::Lazy;
  const WorkCellRecipe* cell = nullptr;
  WorkOutcome outcome;
};

struct ProbeEvidence {
  DriverProfileOrigin origin;
  std::string driver_choice;       // why this driver ("sim: requested")
  std::string driver_library;      // the library the table was loaded from
  std::string simulated_profile;   // for the simulated driver: the profile it was given
  std::string carried_over_from;   // the --profile whose cells fill what could not be measured
  ProbeTimeouts timeouts;
  int jobs = 1;
  std::vector<RecipeEvidence> recipes;  // in call_recipes() order, under lazy loading
  // The same cases under CUDA_MODULE_LOADING=EAGER, in the same order; the profile records where they
  // differ (eager_call_overrides).
  std::vector<RecipeEvidence> eager_recipes;
  std::vector<WorkEvidence> work;       // each loading mode, then work_cell_recipes() order
  std::string work_skipped_because;     // why the runtime's cells have no case (no runtime comparison)
  TopologyEvidence topology;
  RuntimeComparison runtime;
  std::chrono::milliseconds elapsed{0};
};

}  // namespace gilsan::probe
