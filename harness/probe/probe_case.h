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
#include "harness/profile/enqueued_work.h"

namespace gilsan::probe {

enum class CaseKind { Outside, Inside, Topology, Runtime, Work };

struct CaseSpec {
  CaseKind kind = CaseKind::Outside;
  std::string subject;  // call_case_subject, topology case, runtime intent, or "MODE/CELL" (work_matrix.h)
  DriverKind driver = DriverKind::Sim;
  ProbeTimeouts timeouts;
  int enqueue_limit = 0;
  std::string runtime_library;  // "" = the default candidates
};

inline constexpr const char* kCaseArgument = "--probe-case";

// The subject of an inside or outside case: the recipe id under lazy loading (the driver's default),
// "eager/ID" under CUDA_MODULE_LOADING=EAGER.
std::string call_case_subject(ModuleLoading mode, const std::string& recipe_id);
struct CallCaseSubject {
  ModuleLoading mode = ModuleLoading::Lazy;
  std::string recipe_id;
};
CallCaseSubject parse_call_case_subject(const std::string& subject);

std::vector<std::string> case_arguments(const CaseSpec& spec);
bool is_case_invocation(const std::vector<std::string>& arguments);
// Parses the hidden arguments; throws std::invalid_argument for malformed ones.
CaseSpec parse_case_arguments(const std::vector<std::string>& arguments);

// The child's main: opens the driver, runs the case and reports on descriptor kCaseReportFd.
// Every failure is reported there, never thrown. Returns the exit status (0 once reported).
int run_case_child(const std::vector<std::string>& arguments);

}  // namespace gilsan::probe
