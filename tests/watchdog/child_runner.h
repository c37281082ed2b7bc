// A minimal supervisor for the watchdog's integration tests and its latency measurement: what the
// runner (`gilsan run`) does around the watchdog, reduced to spawning a program in its own process
// group with a board, ticking the watchdog, reporting, and cleaning up.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "harness/watchdog/process_cleanup.h"
#include "harness/watchdog/report.h"
#include "harness/watchdog/watchdog.h"

namespace gilsan::watchdog::testing {

struct ChildRunOptions {
  std::vector<std::string> argv;             // argv[0] is the program's path
  std::vector<std::string> extra_environment;  // "NAME=value"
  WatchdogOptions watchdog;
  std::chrono::milliseconds tick{10};
  std::chrono::milliseconds give_up{20000};  // the test's own safety net
  bool python_stack_pipe = false;  // pass a pipe's write end in GILSAN_TEST_PYTHON_FD
};

struct ChildRun {
  pid_t pid = 0;
  std::uint64_t spawned_ns = 0;
  std::optional<Detection> detection;
  std::optional<HangReport> report;
  std::optional<int> exit_status;          // waitpid status, however the child ended
  std::vector<pid_t> tree_before_cleanup;  // the child's process tree when clean-up began
  CleanupResult cleanup;
  std::string board_directory;
  bool gave_up = false;
};

// The driver calls that block while a host function runs, as the shipped H200 profile says (enough
// for tests; the runner asks the loaded profile).
bool test_profile_blocks(std::string_view entry_point);

ChildRun run_under_watchdog(const ChildRunOptions& options);

bool process_exists(pid_t pid);  // alive and not a zombie

}  // namespace gilsan::watchdog::testing
