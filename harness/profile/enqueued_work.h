// What becomes of work enqueued while a host function of the same context runs, per module-loading mode.
//
// The while_host_function_runs table says whether a CALL returns. A call that returns can still have
// enqueued work that the driver does not run until the host function ends, and the first use of a
// kernel in a context (lazy loading, the default since CUDA 12.2) can differ from every later use. This
// table records both halves for a fixed set of cells, each one exact kind of call, under both values
// of CUDA_MODULE_LOADING. Format: docs/driver-profile.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan {

// CUDA_MODULE_LOADING: LAZY (the default since CUDA 12.2, also when unset) or EAGER.
enum class ModuleLoading { Lazy, Eager };

// One enqueuing call made on another thread while a host function of its context runs.
// Ordered from least to most restrictive.
enum class WorkBehaviour {
  Proceeds,    // the call returns and its work completes while the host function still runs
  WorkWaits,   // the call returns, but its work does not complete until no host function of the context runs
  CallBlocks,  // the call itself does not return until no host function of the context runs
};

struct EnqueuedWorkCell {
  std::string name;         // "cuLaunchKernel" or "cuLaunchKernel#first-module-function"
  std::string entry_point;  // the driver entry point the cell is a kind of call of
  bool first_use = false;   // the first use of a kernel in its context (loading may happen here)
  std::string meaning;      // for docs and reports
  bool work_is_host_function = false;  // the work is a host function (on another stream than the running one)
  // The cell's call is one of those the entry point's while_host_function_runs answer is measured
  // with: all but the first launch of a library kernel, which the call table leaves out (a first use
  // must not make every warm launch a blocking call). Relates the call tables to the cells when the
  // EAGER call tables were never measured (driver_profile.h, eager_call_overrides).
  bool decides_call_table = true;
  // The call is the CUDA runtime's (libcudart), not the driver's: the simulated driver, which no
  // libcudart can reach, cannot model it. A /2 profile written before the cell existed may lack it
  // (the reader then derives it as for /1 and lists it in `unmeasured`).
  bool runtime_call = false;
};

// Every cell, in a fixed order. A cell without '#' covers every call of its entry point that no
// first-use cell covers.
const std::vector<EnqueuedWorkCell>& enqueued_work_cells();
const EnqueuedWorkCell* find_enqueued_work_cell(std::string_view name);

using EnqueuedWorkTable = std::map<std::string, WorkBehaviour>;  // by cell name; lists every cell

// The /1 reading: a profile that never measured completion. Each cell takes its entry point's
// while_host_function_runs answer (blocks: call-blocks, returns: proceeds), except that a host
// function enqueued on another stream waits when the profile's topology serializes host functions
// across streams (it cannot run while the held one does); the same in both loading modes.
EnqueuedWorkTable enqueued_work_from_calls(const std::map<std::string, bool>& entry_point_blocks,
                                           bool host_functions_serialized);

WorkBehaviour most_restrictive(WorkBehaviour a, WorkBehaviour b);

const char* to_string(ModuleLoading mode);  // "lazy", "eager"
const char* to_string(WorkBehaviour behaviour);  // "proceeds", "work-waits", "call-blocks"
std::optional<ModuleLoading> module_loading_named(std::string_view name);
std::optional<WorkBehaviour> work_behaviour_named(std::string_view name);
const std::vector<ModuleLoading>& module_loading_modes();  // lazy, eager
// What the CUDA driver makes of a CUDA_MODULE_LOADING value (null: unset): EAGER is eager, anything
// else lazy (the driver's default).
ModuleLoading module_loading_from_environment(const char* value);
// The CUDA_MODULE_LOADING value that selects `mode` in the driver: "LAZY", "EAGER".
const char* module_loading_variable_value(ModuleLoading mode);

}  // namespace gilsan
