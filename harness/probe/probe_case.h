// One probe case as a child process: the hidden arguments that describe it, and the child's main.
//
// The parent re-executes its own binary with these arguments appended to the argv prefix that
// reached the probe command (`gilsan probe` or `gilsan-probe`); run_probe_command recognises them
// and runs the case instead of a probe. They are not part of the documented command line.
#pragma once

#include <string>
#include <vector>

#include "harness/driver/driver_selection.h"
#include "harness/probe/probe_timeouts.h"

namespace gilsan::probe {

enum class CaseKind { Outside, Inside, Topology, Runtime, Work };

struct CaseSpec {
  CaseKind kind = CaseKind::Outside;
  std::string subject;  // recipe id, topology case, runtime intent, or "MODE/CELL" (work_matrix.h)
  DriverKind driver = DriverKind::Sim;
  ProbeTimeouts timeouts;
  int enqueue_limit = 0;
  std::string runtime_library;  // "" = the default candidates
};

inline constexpr const char* kCaseArgument = "--probe-case";

std::vector<std::string> case_arguments(const CaseSpec& spec);
bool is_case_invocation(const std::vector<std::string>& arguments);
// Parses the hidden arguments; throws std::invalid_argument for malformed ones.
CaseSpec parse_case_arguments(const std::vector<std::string>& arguments);

// The child's main: opens the driver, runs the case and reports on descriptor kCaseReportFd.
// Every failure is reported there, never thrown. Returns the exit status (0 once reported).
int run_case_child(const std::vector<std::string>& arguments);

}  // namespace gilsan::probe
