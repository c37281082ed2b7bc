// The outside matrix: each entry point called from another thread while a host function of the same
// context is running (held on a flag the probe controls) on S1. Returned while the host function was
// still held: the driver lets the call through ("returns"); returned only after it was released: the
// driver held the call back ("blocks") — unless the recipe waits for S1 by its nature.
#pragma once

#include <optional>
#include <string>

#include "harness/probe/call_recipe.h"
#include "harness/probe/case_process.h"
#include "harness/probe/case_protocol.h"
#include "harness/probe/probe_timeouts.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

// Child side: measures one recipe and reports it. Throws SetupFailure.
void run_outside_case(const ProbeFixture& fixture, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                      const CaseReporter& reporter);

enum class OutsideObservation {
  Returned,              // while the host function was held
  HeldBack,              // only after the host function was released
  WaitedForHostFunction, // only after release, and the recipe depends on S1: a data dependency
  NeverReturned,         // not even after the host function had been released
  NotMeasured,           // the case could not get as far as the measured call
};

struct OutsideOutcome {
  OutsideObservation observation = OutsideObservation::NotMeasured;
  std::optional<ResultCode> code;     // the measured call's result
  std::optional<ResultCode> control;  // the same call with no host function running
  long long call_microseconds = 0;
  long long held_milliseconds = 0;    // how long the probe waited before releasing the host function
  std::string problem;                // for NeverReturned and NotMeasured
};

OutsideOutcome interpret_outside_case(const CallRecipe& recipe, const CaseResult& result);
// The profile cell this outcome supports, if any.
std::optional<OutsideBehaviour> outside_verdict(const OutsideOutcome& outcome);
const char* describe(OutsideObservation observation);

}  // namespace gilsan::probe
