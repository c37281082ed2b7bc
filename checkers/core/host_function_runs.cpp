#include "checkers/core/host_function_runs.h"

#include <algorithm>

namespace gilsan::checkers {

bool is_sticky_error(int result) {
  // cuda.h's errors after which "the process must terminate and relaunch" (the context is lost).
  constexpr int kSticky[] = {
      214,  // CUDA_ERROR_ECC_UNCORRECTABLE
      700,  // CUDA_ERROR_ILLEGAL_ADDRESS
      702,  // CUDA_ERROR_LAUNCH_TIMEOUT
      710,  // CUDA_ERROR_ASSERT
      714,  // CUDA_ERROR_HARDWARE_STACK_ERROR
      715,  // CUDA_ERROR_ILLEGAL_INSTRUCTION
      716,  // CUDA_ERROR_MISALIGNED_ADDRESS
      717,  // CUDA_ERROR_INVALID_ADDRESS_SPACE
      718,  // CUDA_ERROR_INVALID_PC
      719,  // CUDA_ERROR_LAUNCH_FAILED
  };
  return std::find(std::begin(kSticky), std::end(kSticky), result) != std::end(kSticky);
}

void HostFunctionRuns::enqueued(const Run& run, std::shared_ptr<const Description> description) {
  if (run.run_key == 0) return;
  auto found = runs_nodes_.find_or_make(runs_, run.run_key);
  Runs& runs = found->second;
  // A graph node's key comes back at every launch; the first description stays.
  if (!runs.description) {
    runs.description = std::move(description);
    runs.run = run;
  }
  runs.waiting += 1;
  forget_if_done(found);
}

void HostFunctionRuns::began(std::uint64_t run_key) {
  if (run_key == 0) return;
  Runs& runs = runs_nodes_.find_or_make(runs_, run_key)->second;
  runs.waiting -= 1;
  runs.running += 1;
}

void HostFunctionRuns::ended(std::uint64_t run_key) {
  auto found = runs_.find(run_key);
  if (found == runs_.end()) return;
  found->second.running -= 1;
  forget_if_done(found);
}

std::optional<HostFunctionRuns::Lost> HostFunctionRuns::skipped(std::uint64_t run_key) {
  auto found = runs_.find(run_key);
  if (found == runs_.end() || found->second.reported) return std::nullopt;
  return lost(run_key, found->second,
              "its launcher skipped its callable: the driver reached it after the interpreter began to finalize");
}

void HostFunctionRuns::context_failed(Handle context) {
  if (context != 0) failed_contexts_.insert(context);
}

std::vector<HostFunctionRuns::Lost> HostFunctionRuns::interpreter_finished() {
  return collect(true, "was enqueued and never ran: the interpreter finished first",
                 "was cut off: it was still running when the interpreter finished");
}

std::vector<HostFunctionRuns::Lost> HostFunctionRuns::process_ending() {
  return collect(false, "was enqueued and never ran: the process ended first",
                 "had not returned when the process ended");
}

std::size_t HostFunctionRuns::waiting_runs() const {
  std::size_t waiting = 0;
  for (const auto& [key, runs] : runs_) {
    // A failed context's runs will never begin: nothing is waiting for them any more.
    if (runs.reported || failed_contexts_.contains(runs.run.context)) continue;
    if (runs.waiting > 0) waiting += static_cast<std::size_t>(runs.waiting);
  }
  return waiting;
}

std::vector<HostFunctionRuns::Lost> HostFunctionRuns::collect(bool python_only, const std::string& waiting_why,
                                                              const std::string& running_why) {
  std::vector<std::uint64_t> keys;
  for (const auto& [key, runs] : runs_) keys.push_back(key);
  std::sort(keys.begin(), keys.end());  // in launch order, so reports come out the same every run
  std::vector<Lost> found;
  for (std::uint64_t key : keys) {
    Runs& runs = runs_.at(key);
    if (runs.reported || failed_contexts_.contains(runs.run.context)) continue;
    // A run whose begin overtook its enqueue has no description yet: it is running, not waiting.
    const bool python = runs.description && runs.description->host_function.kind == HostFunctionKind::python;
    if (python_only && !python) continue;
    if (runs.waiting > 0) {
      found.push_back(lost(key, runs, waiting_why));
    } else if (runs.running > 0 && python_only) {
      // Native code still running at process end is the hang the watchdog reports, not a loss.
      found.push_back(lost(key, runs, running_why));
    }
  }
  return found;
}

HostFunctionRuns::Lost HostFunctionRuns::lost(std::uint64_t key, Runs& runs, std::string why) {
  runs.reported = true;
  Lost lost{key, {}, {}, {}, std::move(why)};
  if (runs.description) {
    lost.host_function = runs.description->host_function;
    lost.enqueued_by = runs.description->enqueued_by;
    lost.enqueue_stack = *runs.description->enqueue_stack;
  }
  lost.host_function.run_key = key;
  lost.host_function.context = runs.run.context;
  lost.host_function.stream = runs.run.stream;
  lost.host_function.id = runs.run.id;
  lost.host_function.user_data = runs.run.user_data;
  return lost;
}

void HostFunctionRuns::forget_if_done(std::unordered_map<std::uint64_t, Runs>::iterator found) {
  if (found->second.waiting == 0 && found->second.running == 0 && !found->second.reported)
    runs_nodes_.erase(runs_, found);
}

}  // namespace gilsan::checkers
