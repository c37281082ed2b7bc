// The observer installed with gilsanSimSetObserver (harness/driverhooks/driver_observer.h): read on every
// driver call without taking a lock.
#pragma once

#include "harness/driverhooks/driver_observer.h"

namespace gilsan::driverhooks {

// The installed observer, or null. Each installed copy is kept for the life of the process, so a
// pointer read here stays valid even if another thread installs a new observer meanwhile.
const GilsanSimObserver* current_observer();
// Copies `observer` (null removes it). CUDA_ERROR_INVALID_VALUE for another ABI version.
CUresult install_observer(const GilsanSimObserver* observer);

}  // namespace gilsan::driverhooks
