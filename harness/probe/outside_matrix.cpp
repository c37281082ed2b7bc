#include "harness/probe/outside_matrix.h"

#include "harness/probe/case_outcome.h"
#include "harness/probe/held_host_function.h"
#include "harness/probe/threaded_call.h"

namespace gilsan::probe {

void run_outside_case(const ProbeFixture& f, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                      const CaseReporter& reporter) {
  ControlRun control = run_control(f, recipe);
  reporter.result(key::kControl, control.code, f.name(control.code), control.duration);

  // The driver may run the host function, and the call may use the recipe's objects, until the
  // process ends (a case that fails half-way leaves them in flight), so both are never freed.
  auto* state = new RecipeState;
  auto* held = new HeldHostFunction;
  if (recipe.prepare) recipe.prepare(f, *state);
  ThreadedCall call(f, [&] { return recipe.call(f, *state); });
  if (CUresult rc = call.ready(); rc != CUDA_SUCCESS) throw SetupFailure("cuCtxSetCurrent (calling thread)", rc, f.name(rc));

  // Work the recipe orders after the host function is enqueued while S1 is still busy with device
  // work, so that no host function is running yet when it is.
  if (recipe.after_host_function_enqueued) f.launch_device_work(f.s1, timeouts.gate_work);
  const HostFunctionLaunch launch = held_host_function_launch();
  f.check(std::string(to_string(launch)) + " (the held host function)", held->enqueue(f.driver, f.s1, launch));
  if (recipe.after_host_function_enqueued) recipe.after_host_function_enqueued(f, *state);
  if (!held->wait_until_running(timeouts.case_limit))
    throw SetupFailure("the held host function to start", CUDA_ERROR_UNKNOWN, "no-start");
  reporter.line(key::kHostFunctionRunning);

  const Milliseconds hold = stretched(timeouts.outside_hold, control.duration);
  reporter.line(key::kCallStarted);
  call.go();
  if (!call.wait_for(hold)) {
    reporter.line(key::kHeldBack, {std::to_string(hold.count())});
    // From here the call has this long to come back now that nothing holds it.
    reporter.line(key::kDeadline, {std::to_string((hold * 20).count())});
    held->release();
    reporter.line(key::kReleased);
    call.wait();
  }
  reporter.result(key::kCallReturned, call.result(), f.name(call.result()), call.duration());
  held->release();
  held->wait_until_returned(timeouts.case_limit);
}

OutsideOutcome interpret_outside_case(const CallRecipe& recipe, const CaseResult& result) {
  OutsideOutcome outcome;
  if (const CaseLine* control = result.find(key::kControl)) outcome.control = result_code_at(*control, 0);
  if (std::string failure = setup_problem(result); !failure.empty()) {
    outcome.problem = failure;
    return outcome;
  }
  const CaseLine* returned = result.find(key::kCallReturned);
  const CaseLine* held_back = result.find(key::kHeldBack);
  if (held_back != nullptr) outcome.held_milliseconds = std::atoll(held_back->value(0).c_str());
  if (returned != nullptr) {
    outcome.code = result_code_at(*returned, 0);
    outcome.call_microseconds = std::atoll(returned->value(2).c_str());
    if (held_back == nullptr) {
      outcome.observation = OutsideObservation::Returned;
    } else {
      outcome.observation = recipe.dependency == Dependency::OnHostFunction ? OutsideObservation::WaitedForHostFunction
                                                                           : OutsideObservation::HeldBack;
    }
    return outcome;
  }
  if (held_back != nullptr && result.has(key::kReleased)) {
    outcome.observation = OutsideObservation::NeverReturned;
    outcome.problem = "did not return even after the host function had ended (case " + result.how_it_ended() + ")";
    return outcome;
  }
  outcome.problem = unfinished_case_problem(result);
  return outcome;
}

std::optional<OutsideBehaviour> outside_verdict(const OutsideOutcome& outcome) {
  switch (outcome.observation) {
    case OutsideObservation::Returned: return OutsideBehaviour::Returns;
    case OutsideObservation::HeldBack: return OutsideBehaviour::Blocks;
    default: return std::nullopt;
  }
}

const char* describe(OutsideObservation observation) {
  switch (observation) {
    case OutsideObservation::Returned: return "returns";
    case OutsideObservation::HeldBack: return "blocks";
    case OutsideObservation::WaitedForHostFunction: return "waits by data dependency";
    case OutsideObservation::NeverReturned: return "never returned";
    case OutsideObservation::NotMeasured: return "not measured";
  }
  return "?";
}

}  // namespace gilsan::probe
