// The hold / release / wait rules of the lock-order model (docs/sanitizer.md, "The model"): for each
// kind of event, one pure function that says, in pseudo-locks, what the thread comes to hold, what it
// waits for first, and what ends with the thing the event destroys. The SanitizerModel draws its
// edges from these answers and the ValgrindAnnouncer announces the same answers to Helgrind, so a
// rule lives here once and the two cannot disagree on it (they did: which calls a host function's own
// lock blocks, and which pseudo-locks end with a context).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "checkers/core/events.h"
#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

// A host function begins on a callback thread. What it holds is made from its context and stream only
// when asked (a begin is on the hot path: no pseudo-lock is built that the caller does not use).
class BeginEffects {
 public:
  BeginEffects(const HostFunction& host_function, bool interpreter_finalizing);
  // Held while it runs: whoever waits for a completion waits for every host function in it. Nobody
  // waits to take them. Nullopt when the stream (or the context) is unknown.
  std::optional<PseudoLock> stream_completion() const;
  std::optional<PseudoLock> context_completion() const;
  // It runs only once the context's callback thread is free: the completions above wait for that,
  // then the thread holds it. Present exactly when the context is known.
  std::optional<PseudoLock> callback_thread() const;
  // The driver holds this while the host function runs: taking it waits for nothing.
  std::optional<PseudoLock> host_function_lock() const;
  // A Python host function's trampoline takes the GIL first thing, whether or not the source can show
  // it (CuPy's `with gil`); not once interpreter finalization began (the reference module does not,
  // and host-function-after-finalization reports the ones that try).
  bool takes_gil() const { return takes_gil_; }

 private:
  Handle context_;
  std::optional<Handle> stream_;
  bool takes_gil_;
};
// BeginEffects::takes_gil alone, for a begin whose holds are known already (a twin's, sanitizer_begins.cpp).
bool takes_gil_at_begin(const HostFunction& host_function, bool interpreter_finalizing);

// What the thread calling the driver is in the middle of, as the caller's books say.
struct CallerState {
  bool runs_host_function = false;  // a host function of any context runs on this thread
  // The contexts of the host functions that run on this thread (innermost last; usually none or one):
  // such a thread holds their host-function locks.
  std::span<const Handle> host_function_contexts;
  bool holds_gil = false;  // as the GIL events of this thread say
};

// A driver call is entered.
struct DriverCallEffects {
  // Called in a host function, the driver answers at once (CUDA_ERROR_NOT_PERMITTED): nothing waits.
  bool refused = false;
  // Whether the GIL is among what the caller holds while it waits: the call's own word
  // (DriverCallEnter::holds_gil, a binding may release the GIL around the call or hold it where no
  // trampoline saw it taken) wins over the GIL events.
  bool holds_gil = false;
  // The completions the call waits for: its streams', then its whole context's.
  std::vector<PseudoLock> completions;
  // The profile says this call blocks while a host function of its context runs.
  bool blocked_while_host_function_runs = false;
  // The lock it then waits for, unless the caller runs a host function of that context itself (it is
  // not blocked by the lock its own host function holds) or the context is unknown.
  std::optional<PseudoLock> blocked_by;
  bool waits() const { return !completions.empty() || blocked_by.has_value(); }
};
DriverCallEffects driver_call_effects(const DriverCallEnter& event, const CallerState& caller,
                                      const DriverBehaviour& behaviour);

// A user lock is about to be taken.
struct LockAcquireEffects {
  PseudoLock lock;
  bool waits = false;  // a try-lock or a non-blocking query cannot wait: it is taken, never waited for
  // Python locks: CPython releases the GIL while it waits for the lock, so holding the GIL does not
  // order before the lock.
  bool waits_holding_gil = true;
  // The source said the thread holds the GIL: it waits holding it even where the core's GIL events do
  // not show it (a C library called through ctypes.PyDLL).
  bool holds_gil_for_certain = false;
};
LockAcquireEffects lock_acquire_effects(const LockAcquire& event);

// What ends with a context: its default streams' completions (the NULL, legacy and per-thread handles
// name a stream of each context), its callback thread, its completion and its host-function lock.
std::array<PseudoLock, 6> ended_with_context(Handle context);

}  // namespace gilsan::checkers
