// The suite's console: each run's line as it ends and, on a terminal, one status line below them
// ("[12/63] running: a.py b.py [cupy]") rewritten in place, never wider than the terminal (it is cut
// to the width TIOCGWINSZ gives, asked again after each SIGWINCH, so a narrowed window leaves no stale
// rows). Elsewhere (CI logs) only the runs' lines, no carriage return or escape sequence.
//
// Skipped runs are folded: their lines are left out here (kept with --verbose), and the suite's report
// ends with one line per reason (skip_summary, suite_matrix.h). The JSON, JUnit and SARIF files keep every run.
#pragma once

#include <signal.h>

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/runner/child_supervisor.h"
#include "harness/runner/suite.h"

namespace gilsan {

// `text` cut to `columns` characters (UTF-8 sequences counted as one), ending in "..." when cut.
std::string fit_to_columns(const std::string& text, std::size_t columns);

class SuiteProgress : public SupervisionHook {
 public:
  // Writes to stdout; live when stdout is a terminal that takes a redraw (live_terminal).
  SuiteProgress(std::size_t total, bool verbose);
  ~SuiteProgress() override;  // restores SIGWINCH's previous handler
  SuiteProgress(const SuiteProgress&) = delete;
  SuiteProgress& operator=(const SuiteProgress&) = delete;

  void started(const SuiteItem& item);
  void ended(const ScenarioResult& result);
  // Erases the status line.
  void done();

  // Any worker's supervisor ticks here: a resized terminal gets its status line redrawn at once.
  std::optional<Verdict> on_tick(pid_t child) override;

 private:
  void clear();
  void redraw();
  std::size_t columns() const;

  std::mutex mutex_;  // started/ended come under the suite's lock, ticks from every worker
  std::size_t total_;
  std::size_t ended_ = 0;
  bool verbose_;
  bool live_;
  std::vector<std::string> running_;
  struct sigaction previous_winch_ {};
};

}  // namespace gilsan
