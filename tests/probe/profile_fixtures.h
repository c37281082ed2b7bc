// Hand-made probe evidence for the tests that assemble a profile from it (profile_assembly_test.cpp,
// eager_call_tables_test.cpp): outcomes of single cases, every recipe measured as harmless, and
// lookups of one recipe's or work cell's evidence to change it, shared so that both build their
// evidence alike.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "harness/probe/profile_assembly.h"

namespace gilsan::probe::testing {

// A call matrix case (InsideOutcome or OutsideOutcome) observed as `observation`, its call answering
// `code`, the same call with no host function running succeeding.
template <typename Outcome, typename Observation>
Outcome call_outcome(Observation observation, ResultCode code) {
  Outcome o;
  o.observation = observation;
  o.code = std::move(code);
  o.control = ResultCode{0, "CUDA_SUCCESS"};
  return o;
}

// A call inside a host function that returned `code`.
inline InsideOutcome inside_returned(int code, const char* name) {
  return call_outcome<InsideOutcome>(InsideObservation::Returned, ResultCode{code, name});
}

// A call made while a host function runs, observed as `observation`, that succeeded.
inline OutsideOutcome outside(OutsideObservation observation) {
  return call_outcome<OutsideOutcome>(observation, ResultCode{0, "CUDA_SUCCESS"});
}

// An enqueued-work case observed as `observation`, its call succeeding.
inline WorkOutcome work(WorkObservation observation) {
  WorkOutcome o;
  o.observation = observation;
  o.code = ResultCode{0, "CUDA_SUCCESS"};
  return o;
}

// Every recipe of call_recipes(), allowed inside and returning outside.
inline std::vector<RecipeEvidence> every_recipe_harmless() {
  std::vector<RecipeEvidence> recipes;
  for (const CallRecipe& recipe : call_recipes())
    recipes.push_back({&recipe, inside_returned(0, "CUDA_SUCCESS"), outside(OutsideObservation::Returned)});
  return recipes;
}

// The evidence of recipe `id` in `recipes` (lazy or eager); a test failure when there is none.
inline RecipeEvidence& evidence_of(std::vector<RecipeEvidence>& recipes, const std::string& id) {
  auto it = std::find_if(recipes.begin(), recipes.end(), [&](const RecipeEvidence& r) { return r.recipe->id == id; });
  EXPECT_NE(it, recipes.end()) << id;
  return *it;
}
// The lazy-loading evidence of recipe `id`.
inline RecipeEvidence& evidence_of(ProbeEvidence& e, const std::string& id) { return evidence_of(e.recipes, id); }

// The evidence of the enqueued-work cell `cell` under `mode`; a test failure when there is none.
inline WorkEvidence& work_evidence_of(ProbeEvidence& e, ModuleLoading mode, const std::string& cell) {
  auto it = std::find_if(e.work.begin(), e.work.end(),
                         [&](const WorkEvidence& w) { return w.mode == mode && w.cell->cell->name == cell; });
  EXPECT_NE(it, e.work.end()) << cell;
  return *it;
}

// Whether the profile lists `cell` as unmeasured.
inline bool listed(const DriverProfile& p, const std::string& cell) {
  return std::find(p.unmeasured.begin(), p.unmeasured.end(), cell) != p.unmeasured.end();
}

}  // namespace gilsan::probe::testing
