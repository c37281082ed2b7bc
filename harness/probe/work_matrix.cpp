#include "harness/probe/work_matrix.h"

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "harness/probe/case_outcome.h"
#include "harness/probe/held_host_function.h"
#include "harness/probe/runtime_first_launch.h"
#include "harness/probe/threaded_call.h"

namespace gilsan::probe {
namespace {

using Clock = std::chrono::steady_clock;

// Which recipe measures each cell. The warm launch is `cuLaunchKernel#later`; the recipe named
// `cuLaunchKernel` is the first launch of a module's function.
const char* recipe_id_of(const std::string& cell) {
  if (cell == "cuLaunchKernel") return "cuLaunchKernel#later";
  if (cell == "cuLaunchKernel#first-module-function") return "cuLaunchKernel";
  if (cell == "cuKernelGetFunction#first") return "cuKernelGetFunction";
  return cell.c_str();  // the other cells are named after their recipe
}

// True once `stream` has no pending work, polling within `limit`. cuStreamQuery of another stream
// returns at once while a host function runs (profile: while_host_function_runs.cuStreamQuery).
bool drains_within(const ProbeFixture& f, CUstream stream, Milliseconds limit) {
  const auto until = Clock::now() + limit;
  for (;;) {
    const CUresult rc = f.driver.cuStreamQuery(stream);
    if (rc != CUDA_ERROR_NOT_READY) return rc == CUDA_SUCCESS;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

long long value_of(const CaseLine* line, std::size_t index) {
  return line == nullptr ? 0 : std::atoll(line->value(index).c_str());
}

}  // namespace

const std::vector<WorkCellRecipe>& work_cell_recipes() {
  static const std::vector<WorkCellRecipe> all = [] {
    std::vector<WorkCellRecipe> out;
    for (const EnqueuedWorkCell& cell : enqueued_work_cells()) {
      const CallRecipe* recipe =
          cell.runtime_call ? &runtime_first_launch_recipe() : find_recipe(recipe_id_of(cell.name));
      if (recipe == nullptr || recipe->entry_point != cell.entry_point)
        throw std::logic_error("no probe recipe for the enqueued-work cell " + cell.name);
      out.push_back({&cell, recipe});
    }
    return out;
  }();
  return all;
}

std::string work_case_subject(ModuleLoading mode, const std::string& cell) {
  return std::string(to_string(mode)) + "/" + cell;
}

WorkCaseSubject parse_work_case_subject(const std::string& subject) {
  const auto slash = subject.find('/');
  const std::optional<ModuleLoading> mode =
      slash == std::string::npos ? std::nullopt : module_loading_named(subject.substr(0, slash));
  if (!mode) throw std::invalid_argument("malformed enqueued-work case '" + subject + "'");
  for (const WorkCellRecipe& entry : work_cell_recipes())
    if (entry.cell->name == subject.substr(slash + 1)) return {*mode, &entry};
  throw std::invalid_argument("unknown enqueued-work cell in '" + subject + "'");
}

void select_module_loading(ModuleLoading mode) {
  // The case child, before it opens the driver and starts any thread.
  ::setenv("CUDA_MODULE_LOADING", module_loading_variable_value(mode), 1);  // NOLINT(concurrency-mt-unsafe)
}

void run_work_case(const ProbeFixture& f, const CallRecipe& recipe, const ProbeTimeouts& timeouts,
                   const CaseReporter& reporter) {
  // No control run: it would use the kernel once before the measured call, which must be the
  // first use in this context. The hold is the outside matrix's floor, far above any unobstructed
  // load or launch.
  // As in the outside matrix, the driver may use the state and the host function until the process
  // ends, so neither is freed.
  auto* state = new RecipeState;
  auto* held = new HeldHostFunction;
  if (recipe.prepare) recipe.prepare(f, *state);
  ThreadedCall call(f, [&] { return recipe.call(f, *state); });
  if (CUresult rc = call.ready(); rc != CUDA_SUCCESS) throw SetupFailure("cuCtxSetCurrent (calling thread)", rc, f.name(rc));
  const HostFunctionLaunch launch = held_host_function_launch();
  f.check(std::string(to_string(launch)) + " (the held host function)", held->enqueue(f.driver, f.s1, launch));
  if (!held->wait_until_running(timeouts.case_limit))
    throw SetupFailure("the held host function to start", CUDA_ERROR_UNKNOWN, "no-start");
  reporter.line(key::kHostFunctionRunning);

  const Milliseconds hold = timeouts.outside_hold;
  auto release = [&] {
    reporter.line(key::kDeadline, {std::to_string((hold * 20).count())});
    held->release();
    reporter.line(key::kReleased);
  };
  reporter.line(key::kCallStarted);
  call.go();
  if (!call.wait_for(hold)) {
    reporter.line(key::kHeldBack, {std::to_string(hold.count())});
    release();
    call.wait();
    reporter.result(key::kCallReturned, call.result(), f.name(call.result()), call.duration());
  } else {
    reporter.result(key::kCallReturned, call.result(), f.name(call.result()), call.duration());
    const auto returned = Clock::now();
    const bool drained = drains_within(f, f.s2, hold);
    if (!drained) {
      reporter.line(key::kWorkWaited, {std::to_string(hold.count())});
      release();
    }
    if (drained || drains_within(f, f.s2, hold * 10)) {
      const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - returned);
      reporter.line(key::kWorkCompleted, {std::to_string(waited.count())});
    }
  }
  held->release();
  held->wait_until_returned(timeouts.case_limit);
}

WorkOutcome interpret_work_case(const CaseResult& result) {
  WorkOutcome outcome;
  if (std::string failure = setup_problem(result); !failure.empty()) {
    outcome.problem = failure;
    return outcome;
  }
  const CaseLine* returned = result.find(key::kCallReturned);
  if (returned == nullptr) {
    outcome.observation = result.has(key::kReleased) ? WorkObservation::NeverCompleted : WorkObservation::NotMeasured;
    outcome.problem = result.has(key::kReleased)
                          ? "the call did not return even after the host function had ended (case " + result.how_it_ended() + ")"
                          : unfinished_case_problem(result);
    return outcome;
  }
  outcome.code = result_code_at(*returned, 0);
  outcome.call_microseconds = value_of(returned, 2);
  if (outcome.code && outcome.code->code != CUDA_SUCCESS) {
    outcome.problem = "the call failed with " + outcome.code->name + ": it enqueued nothing";
    return outcome;
  }
  if (result.has(key::kHeldBack)) {
    outcome.observation = WorkObservation::CallHeldBack;
    return outcome;
  }
  const CaseLine* completed = result.find(key::kWorkCompleted);
  if (completed == nullptr) {
    outcome.observation = result.has(key::kWorkWaited) ? WorkObservation::NeverCompleted : WorkObservation::NotMeasured;
    outcome.problem = result.has(key::kWorkWaited) ? "its work did not complete even after the host function had ended"
                                                   : unfinished_case_problem(result);
    return outcome;
  }
  outcome.work_microseconds = value_of(completed, 0);
  outcome.observation = result.has(key::kWorkWaited) ? WorkObservation::WorkWaited : WorkObservation::Proceeded;
  return outcome;
}

std::optional<WorkBehaviour> work_verdict(const WorkOutcome& outcome) {
  switch (outcome.observation) {
    case WorkObservation::Proceeded: return WorkBehaviour::Proceeds;
    case WorkObservation::WorkWaited: return WorkBehaviour::WorkWaits;
    case WorkObservation::CallHeldBack: return WorkBehaviour::CallBlocks;
    default: return std::nullopt;
  }
}

const char* describe(WorkObservation observation) {
  switch (observation) {
    case WorkObservation::Proceeded: return "proceeds";
    case WorkObservation::WorkWaited: return "work waits";
    case WorkObservation::CallHeldBack: return "call blocks";
    case WorkObservation::NeverCompleted: return "never completed";
    case WorkObservation::NotMeasured: return "not measured";
  }
  return "?";
}

}  // namespace gilsan::probe
