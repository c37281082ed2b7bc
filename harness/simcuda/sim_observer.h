// The observer installed with gilsanSimSetObserver: read on every call without taking a lock.
#pragma once

#include "harness/simcuda/gilsan_sim.h"

namespace gilsan::sim {

// The installed observer, or null. Each installed copy is kept for the life of the process, so a
// pointer read here stays valid even if another thread installs a new observer meanwhile.
const GilsanSimObserver* current_observer();
CUresult install_observer(const GilsanSimObserver* observer);

}  // namespace gilsan::sim
