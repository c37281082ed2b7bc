#include "harness/probe/inside_matrix.h"

#include <condition_variable>
#include <mutex>

#include "harness/probe/case_outcome.h"
#include "harness/probe/threaded_call.h"

namespace gilsan::probe {
namespace {

using Clock = std::chrono::steady_clock;

// The host function that makes the measured call. It waits to be armed (the recipe may still have to
// enqueue work after it), tells the parent how long the call may take, makes it, and hands the result
// to the main thread, which names it outside the host function.
class InsideCall {
 public:
  InsideCall(const ProbeFixture& f, const CallRecipe& recipe, RecipeState& state, const CaseReporter& reporter,
             Milliseconds hang_after)
      : f_(f), recipe_(recipe), state_(state), reporter_(reporter), hang_after_(hang_after) {}

  static void CUDA_CB run(void* self) { static_cast<InsideCall*>(self)->body(); }

  void arm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    changed_.notify_all();
  }

  void wait_until_returned(CUresult& code, std::chrono::microseconds& took) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return returned_; });
    code = code_;
    took = took_;
  }

 private:
  void body() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return armed_; });
    }
    reporter_.line(key::kHostFunctionRunning);
    reporter_.line(key::kDeadline, {std::to_string(hang_after_.count())});
    reporter_.line(key::kCallStarted);
    auto started = Clock::now();
    CUresult code = recipe_.call(f_, state_);
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
    std::lock_guard<std::mutex> lock(mutex_);
    code_ = code;
    took_ = took;
    returned_ = true;
    changed_.notify_all();
  }

  const ProbeFixture& f_;
  const CallRecipe& recipe_;
  RecipeState& state_;
  const CaseReporter& reporter_;
  const Milliseconds hang_after_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool returned_ = false;
  CUresult code_ = CUDA_SUCCESS;
  std::chrono::microseconds took_{0};
};

}  // namespace

void run_inside_case(const ProbeFixture& f, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                     const CaseReporter& reporter) {
  ControlRun control = run_control(f, recipe);
  reporter.result(key::kControl, control.code, f.name(control.code), control.duration);

  // The host function uses these until it returns, which a hang never does, and a case that fails
  // half-way leaves it in flight: they are never freed.
  auto* state = new RecipeState;
  if (recipe.prepare) recipe.prepare(f, *state);
  auto* inside = new InsideCall(f, recipe, *state, reporter, stretched(timeouts.inside_hang, control.duration));
  if (recipe.after_host_function_enqueued) f.launch_device_work(f.s1, timeouts.gate_work);
  f.check("cuLaunchHostFunc (the measuring host function)", f.driver.cuLaunchHostFunc(f.s1, &InsideCall::run, inside));
  if (recipe.after_host_function_enqueued) recipe.after_host_function_enqueued(f, *state);
  inside->arm();
  CUresult code = CUDA_SUCCESS;
  std::chrono::microseconds took{0};
  inside->wait_until_returned(code, took);
  reporter.result(key::kCallReturned, code, f.name(code), took);
}

InsideOutcome interpret_inside_case(const CallRecipe& recipe, const CaseResult& result) {
  InsideOutcome outcome;
  if (const CaseLine* control = result.find(key::kControl)) outcome.control = result_code_at(*control, 0);
  if (std::string failure = setup_problem(result); !failure.empty()) {
    outcome.problem = failure;
    return outcome;
  }
  if (const CaseLine* returned = result.find(key::kCallReturned)) {
    outcome.observation = InsideObservation::Returned;
    outcome.code = result_code_at(*returned, 0);
    outcome.call_microseconds = std::atoll(returned->value(2).c_str());
    return outcome;
  }
  if (result.has(key::kCallStarted) && result.killed_at_deadline) {
    if (const CaseLine* deadline = result.find(key::kDeadline)) outcome.waited_milliseconds = std::atoll(deadline->value(0).c_str());
    outcome.observation = recipe.dependency == Dependency::OnHostFunction ? InsideObservation::WaitedForHostFunction
                                                                         : InsideObservation::NoReturn;
    return outcome;
  }
  outcome.problem = result.has(key::kCallStarted) ? "the call did not return: " + unfinished_case_problem(result)
                                                  : unfinished_case_problem(result);
  return outcome;
}

std::optional<InsideBehaviour> inside_verdict(const InsideOutcome& outcome) {
  switch (outcome.observation) {
    case InsideObservation::Returned:
      if (outcome.code && outcome.code->code == CUDA_ERROR_NOT_PERMITTED) return InsideBehaviour::NotPermitted;
      return InsideBehaviour::Allowed;
    case InsideObservation::NoReturn: return InsideBehaviour::Hangs;
    default: return std::nullopt;
  }
}

const char* describe(InsideObservation observation) {
  switch (observation) {
    case InsideObservation::Returned: return "returned";
    case InsideObservation::NoReturn: return "no return (hang)";
    case InsideObservation::WaitedForHostFunction: return "no return (waits for itself: data dependency)";
    case InsideObservation::NotMeasured: return "not measured";
  }
  return "?";
}

}  // namespace gilsan::probe
