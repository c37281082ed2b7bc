// Names the deadlock a lock-order cycle would produce, from the kinds of the pseudo-locks it goes
// through. The watchdog's classifier names hangs that happened; this names hangs that can happen,
// with the same type and the same rules (deadlock_taxonomy.h; tests/checkers/
// test_shared_cycle_shapes.cpp feeds both the same shapes). It never returns a class the table marks
// as not predicted (finalization, gpu-stall).
#pragma once

#include <vector>

#include "checkers/core/deadlock_taxonomy.h"
#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

using DeadlockClass = gilsan::DeadlockClass;

// `cycle` lists the pseudo-locks in edge order: cycle[i] -> cycle[i+1] -> ... -> cycle[0].
DeadlockClass classify_cycle(const std::vector<PseudoLock>& cycle);

}  // namespace gilsan::checkers
