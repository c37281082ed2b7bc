#include "checkers/core/deadlock_class.h"

#include <optional>

namespace gilsan::checkers {
namespace {

bool contains(const std::vector<PseudoLock>& cycle, auto&& predicate) {
  for (const PseudoLock& lock : cycle) {
    if (predicate(lock)) return true;
  }
  return false;
}

bool is_driver_pseudo_lock(const PseudoLock& lock) {
  return lock.is_completion() || lock.kind == PseudoLockKind::callback_thread ||
         lock.kind == PseudoLockKind::host_function_lock;
}

}  // namespace

std::string_view to_string(DeadlockClass deadlock_class) {
  switch (deadlock_class) {
    case DeadlockClass::gil_driver_inversion:
      return "gil-driver-inversion";
    case DeadlockClass::callback_self_wait:
      return "callback-self-wait";
    case DeadlockClass::callback_serialization:
      return "callback-serialization";
    case DeadlockClass::callback_driver_lock:
      return "callback-driver-lock";
    case DeadlockClass::user_lock_inversion:
      return "user-lock-inversion";
    case DeadlockClass::unknown:
      return "unknown";
  }
  return "unknown";
}

// The rules are tried in order, and match the watchdog's classifier (docs/watchdog.md), so that a
// predicted cycle and the hang it would cause get the same name. docs/sanitizer.md explains each.
DeadlockClass classify_cycle(const std::vector<PseudoLock>& cycle) {
  using Kind = PseudoLockKind;
  auto is = [](Kind kind) { return [kind](const PseudoLock& lock) { return lock.kind == kind; }; };
  // Only a host function can wait for a completion it holds: its own stream or context.
  if (cycle.size() == 1 && cycle.front().is_completion()) return DeadlockClass::callback_self_wait;
  if (contains(cycle, is(Kind::gil)) && contains(cycle, is_driver_pseudo_lock)) {
    return DeadlockClass::gil_driver_inversion;
  }
  if (contains(cycle, is(Kind::host_function_lock))) return DeadlockClass::callback_driver_lock;
  // With or without the driver: the taxonomy has no separate name for a plain lock-order inversion.
  if (contains(cycle, is(Kind::user_lock))) return DeadlockClass::user_lock_inversion;
  // Host functions of one context waiting for each other through their shared callback thread.
  // Callback threads of two contexts waiting for each other are not that.
  std::optional<Handle> context;
  bool one_context = true;
  for (const PseudoLock& lock : cycle) {
    if (lock.kind != Kind::callback_thread) continue;
    if (context && *context != lock.context) one_context = false;
    context = lock.context;
  }
  if (context && one_context) return DeadlockClass::callback_serialization;
  return DeadlockClass::unknown;
}

}  // namespace gilsan::checkers
