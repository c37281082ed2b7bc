// What `gilsan run`, `gilsan suite` and `gilsan merge` do with a parsed command line; each returns the exit code.
// Errors they cannot turn into an outcome propagate: ScenarioInputError (exit 2), anything else (3).
#pragma once

#include "harness/command/command_line.h"

namespace gilsan {

int run_command(const RunCommand& command);
int suite_command(const SuiteCommand& command);
int merge_command(const MergeCommand& command);

}  // namespace gilsan
