// The Sanitizer that libgilsan_inject.so's traced Python locks report to (python_lock_exports.cpp).
#pragma once

#include "checkers/core/sanitizer.h"

namespace gilsan::checkers::inject {

// Set once the injected sanitizer runs; until then (or with null) the locks only write the board.
void set_python_lock_sanitizer(Sanitizer* sanitizer);
Sanitizer* python_lock_sanitizer();

}  // namespace gilsan::checkers::inject
