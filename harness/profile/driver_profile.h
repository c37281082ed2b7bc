// DriverProfile: what one CUDA driver does around host functions, as data.
//
// The simulated driver takes all of its host-function behaviour from a profile, and `gilsan probe`
// measures one from a real driver, so the model is corrected by measurement, never by code.
// Format: docs/driver-profile.md. Shipped profiles: profiles/*.json.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/profile/enqueued_work.h"

namespace gilsan {

// Written by to_json; parse_driver_profile also reads /1, which has no enqueued-work table.
inline constexpr const char* kDriverProfileSchema = "gilsan-driver-profile/2";
inline constexpr const char* kDriverProfileSchemaV1 = "gilsan-driver-profile/1";

// A driver call made on the callback thread, from inside a running host function.
enum class InsideBehaviour {
  Allowed,       // the call does its work (and may still wait on a real data dependency)
  NotPermitted,  // returns CUDA_ERROR_NOT_PERMITTED and does nothing
  Hangs,         // never returns
};

// A driver call made on another thread of the process while a host function of the same context runs.
enum class OutsideBehaviour {
  Returns,  // not held back by the running host function
  Blocks,   // waits until no host function of that context is running
};

enum class CallbackThreadScope { PerContext, PerDevice, PerProcess };

struct DriverProfileTopology {
  CallbackThreadScope callback_thread = CallbackThreadScope::PerContext;
  bool serialized_across_streams = true;
  // Host functions pending behind a running one at which cuLaunchHostFunc itself starts to block;
  // nullopt when no depth up to the probe's limit blocked.
  std::optional<int> enqueue_blocks_at_depth;
};

// Where a profile came from. Strings, kept as measured; not interpreted.
struct DriverProfileOrigin {
  std::string gpu;
  std::string driver_version;
  int cuda_version = 0;
  std::string date;
  std::string method;
};

// The call tables' answers under CUDA_MODULE_LOADING=EAGER where they differ from the tables, which
// are measured under lazy loading (the driver's default): only the entry points that differ.
struct CallTableOverrides {
  std::map<std::string, InsideBehaviour> inside_host_function;
  std::map<std::string, OutsideBehaviour> while_host_function_runs;
  bool operator==(const CallTableOverrides&) const = default;
};

struct DriverProfile {
  DriverProfileOrigin origin;
  DriverProfileTopology topology;
  std::map<std::string, InsideBehaviour> inside_host_function;
  std::map<std::string, OutsideBehaviour> while_host_function_runs;
  // Both halves (call returns, work completes) of enqueuing calls and first kernel uses, per loading
  // mode (enqueued_work.h); lists both modes. A /1 profile gets enqueued_work_from_calls in both.
  std::map<ModuleLoading, EnqueuedWorkTable> enqueued_work;
  // The key eager_call_overrides: what the probe measured of the call tables under EAGER. nullopt in a
  // profile from before that was measured; eager_overrides() then derives them from the cells.
  std::optional<CallTableOverrides> eager_call_overrides;
  // "inside_host_function.cuX" / "while_host_function_runs.cuX" /
  // "enqueued_work_while_host_function_runs.MODE.CELL" / "eager_call_overrides.TABLE.cuX" cells that
  // were assumed, not measured.
  std::vector<std::string> unmeasured;
  // Entry points of the driver table that the profile's file lists in neither call table (it was
  // written before they were added), sorted: their cells hold the unmeasured answers and are in
  // `unmeasured` (absent_entry_points.h). Not written by to_json, which writes those answers.
  std::vector<std::string> absent_entry_points;

  // Behaviour of an entry point; throws std::out_of_range for a name the profile does not list.
  InsideBehaviour inside(std::string_view entry_point) const;
  OutsideBehaviour outside(std::string_view entry_point) const;
  // Under a loading mode: lazy is the tables above, eager applies eager_overrides().
  InsideBehaviour inside(ModuleLoading mode, std::string_view entry_point) const;
  OutsideBehaviour outside(ModuleLoading mode, std::string_view entry_point) const;
  // eager_call_overrides as measured, else derived: an entry point whose call half of the cells that
  // decide its call table (enqueued_work.h) differs between the modes gets the EAGER half there
  // (call-blocks: blocks, else returns). The inside table has no cells: nothing is derived for it.
  CallTableOverrides eager_overrides() const;
  // Throws std::out_of_range for a cell the profile does not list.
  WorkBehaviour work(ModuleLoading mode, std::string_view cell) const;
  // Same answers in every behavioural cell and the topology, the EAGER call tables as eager_overrides()
  // gives them (origin and unmeasured are not compared).
  bool same_behaviour(const DriverProfile& other) const;
};

class DriverProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The entry points every profile lists in both tables: all of the driver table's but the pure
// error-string lookups.
const std::vector<std::string>& profiled_entry_points();

// The enqueued-work table of a profile that measured only whether calls return (/1), read from its
// call table and topology.
std::map<ModuleLoading, EnqueuedWorkTable> enqueued_work_from_calls(
    const std::map<std::string, OutsideBehaviour>& while_host_function_runs, const DriverProfileTopology& topology);

// Parses a profile (/2, or /1 with its enqueued work derived). `source` names it in errors, which read "SOURCE:LINE: message" and name the key.
// An entry point the file lists in neither call table is unmeasured, not an error (absent_entry_points.h).
DriverProfile parse_driver_profile(std::string_view json_text, const std::string& source);
// Reads and parses the file; says in one line on stderr which entry points it lacks, once per process
// (warn_about_absent_entry_points).
DriverProfile load_driver_profile(const std::string& path);
// Canonical JSON (sorted keys, two-space indent, trailing newline): parse(to_json(p)) == p.
std::string to_json(const DriverProfile& profile);

const char* to_string(InsideBehaviour behaviour);
const char* to_string(OutsideBehaviour behaviour);
const char* to_string(CallbackThreadScope scope);

}  // namespace gilsan
