// Names the deadlock a lock-order cycle would produce, in the taxonomy of DESIGN.md, from the kinds
// of the pseudo-locks it goes through. The watchdog's classifier names hangs that happened; this
// names hangs that can happen, with the same words.
#pragma once

#include <string_view>
#include <vector>

#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

enum class DeadlockClass {
  gil_driver_inversion,    // the GIL is held across a driver wait for work that needs the GIL
  callback_self_wait,      // a host function waits for completion it is itself part of
  callback_serialization,  // a host function waits for another host function of its callback thread
  callback_driver_lock,  // a thread holding X is blocked by the driver while a host function needs
                         // X
  user_lock_inversion,   // a thread holding a user lock waits for a host function that needs it
  unknown,               // a cycle of user locks and the GIL only, or one no rule above names
};

std::string_view to_string(DeadlockClass deadlock_class);

// `cycle` lists the pseudo-locks in edge order: cycle[i] -> cycle[i+1] -> ... -> cycle[0].
DeadlockClass classify_cycle(const std::vector<PseudoLock>& cycle);

}  // namespace gilsan::checkers
