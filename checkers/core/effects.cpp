#include "checkers/core/effects.h"

#include <algorithm>

namespace gilsan::checkers {

BeginEffects::BeginEffects(const HostFunction& host_function, bool interpreter_finalizing)
    : context_(host_function.context),
      stream_(host_function.stream),
      takes_gil_(takes_gil_at_begin(host_function, interpreter_finalizing)) {}

std::optional<PseudoLock> BeginEffects::stream_completion() const {
  if (!stream_) return std::nullopt;
  return PseudoLock::stream_completion(context_, *stream_);
}

std::optional<PseudoLock> BeginEffects::context_completion() const {
  if (context_ == 0) return std::nullopt;
  return PseudoLock::context_completion(context_);
}

std::optional<PseudoLock> BeginEffects::callback_thread() const {
  if (context_ == 0) return std::nullopt;
  return PseudoLock::callback_thread(context_);
}

std::optional<PseudoLock> BeginEffects::host_function_lock() const {
  if (context_ == 0) return std::nullopt;
  return PseudoLock::host_function_lock(context_);
}

bool takes_gil_at_begin(const HostFunction& host_function, bool interpreter_finalizing) {
  return host_function.kind == HostFunctionKind::python && !interpreter_finalizing;
}

DriverCallEffects driver_call_effects(const DriverCallEnter& event, const CallerState& caller,
                                      const DriverBehaviour& behaviour) {
  DriverCallEffects effects;
  effects.holds_gil = event.holds_gil.value_or(caller.holds_gil);
  if (caller.runs_host_function && behaviour.refused_in_host_function &&
      behaviour.refused_in_host_function(event.entry_point)) {
    effects.refused = true;
    return effects;
  }
  for (Handle stream : event.waits.streams) {
    effects.completions.push_back(PseudoLock::stream_completion(event.context, stream));
  }
  if (event.waits.whole_context && event.context != 0) {
    effects.completions.push_back(PseudoLock::context_completion(event.context));
  }
  effects.blocked_while_host_function_runs =
      behaviour.blocks_while_host_function_runs && behaviour.blocks_while_host_function_runs(event.entry_point);
  const bool holds_its_lock = std::ranges::find(caller.host_function_contexts, event.context) !=
                              caller.host_function_contexts.end();
  if (effects.blocked_while_host_function_runs && event.context != 0 && !holds_its_lock) {
    effects.blocked_by = PseudoLock::host_function_lock(event.context);
  }
  return effects;
}

LockAcquireEffects lock_acquire_effects(const LockAcquire& event) {
  const bool holds_gil = !event.releases_gil_while_waiting && event.holds_gil.value_or(true);
  return LockAcquireEffects{.lock = PseudoLock::user_lock(event.lock, event.name),
                            .waits = event.can_block,
                            .waits_holding_gil = holds_gil,
                            .holds_gil_for_certain = holds_gil && event.holds_gil.has_value()};
}

std::array<PseudoLock, 6> ended_with_context(Handle context) {
  return {PseudoLock::stream_completion(context, 0),   PseudoLock::stream_completion(context, 1),
          PseudoLock::stream_completion(context, 2),   PseudoLock::callback_thread(context),
          PseudoLock::context_completion(context),     PseudoLock::host_function_lock(context)};
}

}  // namespace gilsan::checkers
