// How the parent (harness/runner) tells the process it re-executes itself as what to run: the hidden
// commands and their arguments, the variables and file descriptors it hands over. The child's side
// (harness/child) reads them; the command line (harness/command) parses the hidden commands. What the
// child says back is child_report.h's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gilsan {

// `gilsan __scenario-child [--driver D] [--python-env DIR] [--impl NAME] SCENARIO.py`: one scenario
// file in an embedded interpreter.
inline constexpr const char* kScenarioChildCommand = "__scenario-child";

struct ChildArguments {
  std::string scenario_path;
  std::string driver_request = "auto";        // auto | real | sim
  std::optional<std::string> virtualenv;      // --python-env: a virtualenv's root folder
  std::optional<std::string> implementation;  // --impl: a conformance scenario's implementation
};

// `gilsan __program-child -- COMMAND [ARGS...]`: turns into the user's program, unmodified.
inline constexpr const char* kProgramChildCommand = "__program-child";

struct ProgramArguments {
  std::vector<std::string> command;  // argv of the program, argv[0] included
};

// Where the child finds the write end of the watchdog's Python-stack pipe (3 is the report channel).
inline constexpr int kPythonStackFdInChild = 4;
inline constexpr const char* kPythonStackFdVariable = "GILSAN_PYTHON_STACK_FD";

// What turns the sanitizer on in a child, and where it writes (GILSAN_REPORT is the core's own).
inline constexpr const char* kSanitizeVariable = "GILSAN_SANITIZE";            // "1"
inline constexpr const char* kSanitizerReportVariable = "GILSAN_REPORT";        // the JSON report
inline constexpr const char* kSanitizerTextVariable = "GILSAN_SANITIZER_TEXT";  // the text report

}  // namespace gilsan
