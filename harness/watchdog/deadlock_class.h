// The deadlock taxonomy as the watchdog's classifier names it: the one type of
// checkers/core/deadlock_taxonomy.h (made from checkers/core/deadlock_classes.inc), which the
// sanitizer core's predictions use too. Header-only: the watchdog links nothing of the sanitizer.
#pragma once

#include "checkers/core/deadlock_taxonomy.h"

namespace gilsan::watchdog {

using DeadlockClass = gilsan::DeadlockClass;
// For callers that qualify them (watchdog::to_string, watchdog::parse_deadlock_class).
using gilsan::parse_deadlock_class;
using gilsan::to_string;

}  // namespace gilsan::watchdog
