// WatchdogHook: the watchdog (harness/watchdog) plugged into one scenario run as a SupervisionHook.
//
// Before the spawn it creates the run's board and a pipe for faulthandler's Python stacks, and hands
// both to the child (GILSAN_BOARD, GILSAN_PYTHON_STACK_FD). Every supervision tick it runs
// Watchdog::tick. On a hang it classifies the snapshot, keeps the reports (text, JSON, DOT), kills the
// process group and returns the verdict deadlock:CLASS. On a crash it keeps the same reports but no
// verdict: the child dies of its own signal, so the outcome stays crash:SIGNAL. finish() sweeps what
// is left of the child's process tree and removes the board.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "harness/runner/child_supervisor.h"
#include "harness/runner/unique_fd.h"
#include "harness/scenario/child_protocol.h"
#include "harness/watchdog/process_cleanup.h"
#include "harness/watchdog/report.h"
#include "harness/watchdog/wait_graph_builder.h"
#include "harness/watchdog/watchdog.h"

namespace gilsan {

struct WatchdogSettings {
  std::chrono::milliseconds quiet = watchdog::kDefaultQuiet;  // --quiet-ms; x20 under valgrind
  std::optional<std::string> dot_path;                        // --dot: the wait-for graph as Graphviz
  // --under: the child runs under a tool (valgrind): the quiet period is multiplied by this; 0: no tool.
  unsigned under_tool_factor = 0;
};

// What the watchdog found in one run: a hang or a crash, classified and rendered.
struct WatchdogFindings {
  watchdog::DetectionKind kind = watchdog::DetectionKind::Hang;
  std::string class_name;  // a deadlock class, or "crash"
  std::string summary;
  std::string text;        // render_text, short (what a person reads first)
  std::string full_text;   // render_text, full: every thread and frame (--report full)
  std::string json;        // render_json (schema gilsan-hang-report/1)
  std::string dot;         // render_dot
  // Last progress the watchdog saw (board counters or CPU use: the hang's onset as it can know it) to
  // the reports rendered and the DOT file written. Hangs only.
  std::optional<double> onset_to_report_ms;
  std::optional<std::string> dot_error;  // --dot FILE could not be written
};

// Whether the runner itself runs under valgrind (then so does the re-executed child).
bool running_under_valgrind();

class WatchdogHook : public SupervisionHook {
 public:
  // Throws board::BoardError when the board cannot be created, std::system_error for the pipe.
  WatchdogHook(WatchdogSettings settings, watchdog::DriverCallBlocksPredicate blocks_while_host_function_runs);
  WatchdogHook(const WatchdogHook&) = delete;
  WatchdogHook& operator=(const WatchdogHook&) = delete;

  void before_spawn(ChildCommand& command) override;
  void on_start(pid_t child) override;
  std::optional<Verdict> on_tick(pid_t child) override;
  // The same snapshot a hang gets (threads, Python and native stacks, the classifier's reading), taken
  // before the kill; its report says it was a timeout.
  void on_timeout(pid_t child) override;

  // After the supervisor reaped the child: kills and reaps anything left of its tree, removes the board.
  void finish(pid_t child);

  const std::optional<WatchdogFindings>& findings() const { return findings_; }

 private:
  void record(const watchdog::HangReport& report);

  WatchdogSettings settings_;
  watchdog::DriverCallBlocksPredicate blocks_;
  watchdog::RunGuard guard_;
  UniqueFd python_stack_read_;
  UniqueFd python_stack_write_;
  std::optional<watchdog::Watchdog> watchdog_;
  std::optional<WatchdogFindings> findings_;
};

}  // namespace gilsan
