// Progress for a person at a terminal, and none for logs: a pipe or a file (CI) gets only finished
// lines, never carriage returns or escape sequences. gilsan writes no colour, so NO_COLOR has nothing
// to turn off; TERM=dumb turns the in-place redraw off as well.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "harness/runner/child_supervisor.h"

namespace gilsan {

// Whether `fd` is a terminal that takes an in-place redraw (\r and ESC[K).
bool live_terminal(int fd);

// `gilsan run` on a terminal: from kQuietStart into a run on, one line on stderr, "gilsan: running
// NAME: 12 s of 60 s", rewritten each second and erased when the run ends, so a long run (a slow
// scenario, one under --under valgrind) is not mistaken for a hung gilsan.
class RunProgressHook : public SupervisionHook {
 public:
  static constexpr std::chrono::seconds kQuietStart{2};

  RunProgressHook(std::string name, double timeout_seconds);
  ~RunProgressHook() override;  // erases the line
  RunProgressHook(const RunProgressHook&) = delete;
  RunProgressHook& operator=(const RunProgressHook&) = delete;

  void on_start(pid_t child) override;
  std::optional<Verdict> on_tick(pid_t child) override;

 private:
  void write(const std::string& text) const;

  std::string name_;
  double timeout_seconds_;
  bool live_;
  std::chrono::steady_clock::time_point started_;
  long long shown_second_ = -1;  // the elapsed second on the line now; -1: no line shown
};

}  // namespace gilsan
