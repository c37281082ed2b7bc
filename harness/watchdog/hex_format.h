// Handles and addresses are shown the same way everywhere in reports, the sanitizer's and the
// watchdog's: lower-case hex with "0x" (checkers/core/handles.h is the one home of the format).
#pragma once

#include "checkers/core/handles.h"

namespace gilsan::watchdog {

using checkers::hex;

}  // namespace gilsan::watchdog
