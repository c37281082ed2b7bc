// The scenario child: the process `gilsan run` re-executes itself as (`gilsan __scenario-child`)
// to run one scenario file in an embedded interpreter and report back over the report pipe.
#pragma once

#include <string>

#include "harness/scenario/child_protocol.h"

namespace gilsan {

// Where the conformance scenarios' implementations (the Python package gilsan_impl) are:
// $GILSAN_IMPL_PATH, else share/gilsan/impl of an installed tree, else harness/impl of the source tree
// this gilsan was built from.
std::string implementations_folder();

// Runs the scenario and ends the process with the scenario's exit status (0, 1 for an uncaught
// exception, SystemExit's code), or 3 when the child itself failed. Never returns.
[[noreturn]] void run_scenario_child(const ChildArguments& arguments);

}  // namespace gilsan
