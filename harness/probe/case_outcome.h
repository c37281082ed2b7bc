// Reading a finished case for what went wrong before its measurement, shared by every matrix.
#pragma once

#include <string>

#include "harness/probe/case_process.h"

namespace gilsan::probe {

// "setup failed: STEP (CODE_NAME)" when the child reported a failed preparation step, else "".
std::string setup_problem(const CaseResult& result);
// One sentence for a case that ended before it reported its measurement: how it ended and the last
// line the child printed, if any.
std::string unfinished_case_problem(const CaseResult& result);

}  // namespace gilsan::probe
