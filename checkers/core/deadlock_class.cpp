#include "checkers/core/deadlock_class.h"

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

// The rules are tried in order, and are the watchdog's (docs/watchdog.md, "The classifier"), so that
// a predicted cycle and the hang it would cause get the same name. docs/sanitizer.md explains each.
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
  // A host function waits for one that cannot start because the callback thread it needs is busy.
  // With two contexts (each host function waits for a stream of the other's context) this is still
  // serialization: the cycle exists only because each context runs its host functions one at a time,
  // and whether two contexts share one callback thread is the driver's choice (the profile's
  // topology.callback_thread: per-context, per-device or per-process); the class must not change
  // with it. The watchdog names the same hang the same way.
  if (contains(cycle, is(Kind::callback_thread))) return DeadlockClass::callback_serialization;
  // E.g. host functions of two contexts, both running, each waiting for the other's stream.
  return DeadlockClass::unknown;
}

}  // namespace gilsan::checkers
