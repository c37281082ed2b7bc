// The call tables under CUDA_MODULE_LOADING=EAGER (the DriverProfile members declared in
// driver_profile.h): the lazy tables with the eager overrides applied, measured or derived.
#include <stdexcept>

#include "harness/profile/driver_profile.h"

namespace gilsan {
namespace {

// The call half of an entry point's call-deciding cells under one mode: blocks when any call blocks
// (the call table takes the most restrictive recipe); nullopt for an entry point without such cells.
std::optional<OutsideBehaviour> call_half(const EnqueuedWorkTable& cells, const std::string& entry_point) {
  std::optional<OutsideBehaviour> out;
  for (const EnqueuedWorkCell& cell : enqueued_work_cells()) {
    if (cell.entry_point != entry_point || !cell.decides_call_table) continue;
    const auto found = cells.find(cell.name);
    if (found == cells.end()) continue;
    const bool blocks = found->second == WorkBehaviour::CallBlocks;
    out = blocks || out == OutsideBehaviour::Blocks ? OutsideBehaviour::Blocks : OutsideBehaviour::Returns;
  }
  return out;
}

}  // namespace

CallTableOverrides DriverProfile::eager_overrides() const {
  if (eager_call_overrides) return *eager_call_overrides;
  // Never measured: the measured cells are the evidence there is. Only a difference between the
  // modes' cells is carried over, so a profile whose lazy cells and call table disagree (hand-edited)
  // gets no override from the disagreement itself.
  CallTableOverrides derived;
  const auto lazy = enqueued_work.find(ModuleLoading::Lazy);
  const auto eager = enqueued_work.find(ModuleLoading::Eager);
  if (lazy == enqueued_work.end() || eager == enqueued_work.end()) return derived;
  for (const auto& [entry, behaviour] : while_host_function_runs) {
    const std::optional<OutsideBehaviour> lazy_half = call_half(lazy->second, entry);
    const std::optional<OutsideBehaviour> eager_half = call_half(eager->second, entry);
    if (lazy_half && eager_half && *lazy_half != *eager_half && *eager_half != behaviour)
      derived.while_host_function_runs[entry] = *eager_half;
  }
  return derived;
}

InsideBehaviour DriverProfile::inside(ModuleLoading mode, std::string_view entry_point) const {
  if (mode == ModuleLoading::Eager) {
    const CallTableOverrides overrides = eager_overrides();
    const auto found = overrides.inside_host_function.find(std::string(entry_point));
    if (found != overrides.inside_host_function.end()) return found->second;
  }
  return inside(entry_point);
}

OutsideBehaviour DriverProfile::outside(ModuleLoading mode, std::string_view entry_point) const {
  if (mode == ModuleLoading::Eager) {
    const CallTableOverrides overrides = eager_overrides();
    const auto found = overrides.while_host_function_runs.find(std::string(entry_point));
    if (found != overrides.while_host_function_runs.end()) return found->second;
  }
  return outside(entry_point);
}

}  // namespace gilsan
