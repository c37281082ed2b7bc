// The inside matrix: each entry point called from inside a host function running on S1. Each case is
// a child process of its own, so a call that never returns costs that case, not the run:
// CUDA_ERROR_NOT_PERMITTED -> "not-permitted"; no return within the hang timeout, for a recipe with no
// data dependency on the running host function -> "hangs"; any other result code -> "allowed".
#pragma once

#include <optional>
#include <string>

#include "harness/probe/call_recipe.h"
#include "harness/probe/case_process.h"
#include "harness/probe/case_protocol.h"
#include "harness/probe/probe_timeouts.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

// Child side: measures one recipe and reports it. Throws SetupFailure. Returns only once the call
// has returned; a call that hangs keeps the child here until the parent kills it.
void run_inside_case(const ProbeFixture& fixture, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                     const CaseReporter& reporter);

enum class InsideObservation {
  Returned,              // with a result code
  NoReturn,              // not within the hang timeout
  WaitedForHostFunction, // no return, and the recipe waits for S1 (the host function itself) by its nature
  NotMeasured,           // the case did not get as far as the call, or it crashed in it
};

struct InsideOutcome {
  InsideObservation observation = InsideObservation::NotMeasured;
  std::optional<ResultCode> code;     // the measured call's result
  std::optional<ResultCode> control;  // the same call with no host function running
  long long call_microseconds = 0;
  long long waited_milliseconds = 0;  // for a call that did not return: how long it had
  std::string problem;                // for NotMeasured
};

InsideOutcome interpret_inside_case(const CallRecipe& recipe, const CaseResult& result);
std::optional<InsideBehaviour> inside_verdict(const InsideOutcome& outcome);
const char* describe(InsideObservation observation);

}  // namespace gilsan::probe
