// The deadlock taxonomy (shared/DESIGN.md, docs/watchdog.md) as the classifier names it.
#pragma once

#include <optional>
#include <string_view>

namespace gilsan::watchdog {

enum class DeadlockClass {
  GilDriverInversion,     // a GIL holder waits in the driver for work that needs the GIL
  CallbackSelfWait,       // a host function waits for work ordered after itself
  CallbackSerialization,  // a host function waits for another host function of its context
  CallbackDriverLock,     // a host function needs what a thread held back by the driver holds
  UserLockInversion,      // a user lock in the cycle (with a host function, the GIL, or other locks)
  Finalization,           // a host function needs the interpreter after finalization began
  GpuStall,               // no host-side cycle: device work does not complete
  Unknown,                // none of the above; the report still carries the evidence
};

inline const char* to_string(DeadlockClass value) {
  switch (value) {
    case DeadlockClass::GilDriverInversion: return "gil-driver-inversion";
    case DeadlockClass::CallbackSelfWait: return "callback-self-wait";
    case DeadlockClass::CallbackSerialization: return "callback-serialization";
    case DeadlockClass::CallbackDriverLock: return "callback-driver-lock";
    case DeadlockClass::UserLockInversion: return "user-lock-inversion";
    case DeadlockClass::Finalization: return "finalization";
    case DeadlockClass::GpuStall: return "gpu-stall";
    case DeadlockClass::Unknown: return "unknown";
  }
  return "invalid";
}

// For comparing with a scenario's `expect: deadlock:CLASS`.
inline std::optional<DeadlockClass> parse_deadlock_class(std::string_view text) {
  for (auto value : {DeadlockClass::GilDriverInversion, DeadlockClass::CallbackSelfWait,
                     DeadlockClass::CallbackSerialization, DeadlockClass::CallbackDriverLock,
                     DeadlockClass::UserLockInversion, DeadlockClass::Finalization, DeadlockClass::GpuStall,
                     DeadlockClass::Unknown}) {
    if (text == to_string(value)) return value;
  }
  return std::nullopt;
}

}  // namespace gilsan::watchdog
