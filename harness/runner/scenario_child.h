// The scenario child: the process `gilsan run` re-executes itself as (`gilsan __scenario-child`)
// to run one scenario file in an embedded interpreter and report back over the report pipe.
#pragma once

#include <optional>
#include <string>

namespace gilsan {

inline constexpr const char* kScenarioChildCommand = "__scenario-child";

struct ChildArguments {
  std::string scenario_path;
  std::string driver_request = "auto";        // auto | real | sim
  std::optional<std::string> virtualenv;      // --python-env: a virtualenv's root folder
  std::optional<std::string> implementation;  // --impl: a conformance scenario's implementation
};

// Where the conformance scenarios' implementations (the Python package gilsan_impl) are:
// $GILSAN_IMPL_PATH, else share/gilsan/impl of an installed tree, else harness/impl of the source tree
// this gilsan was built from.
std::string implementations_folder();

// Runs the scenario and ends the process with the scenario's exit status (0, 1 for an uncaught
// exception, SystemExit's code), or 3 when the child itself failed. Never returns.
[[noreturn]] void run_scenario_child(const ChildArguments& arguments);

}  // namespace gilsan
