#include "harness/command/suite_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <iostream>

#include "harness/command/run_progress.h"
#include "harness/reports/run_report.h"

namespace gilsan {
namespace {

// Set by SIGWINCH, taken by the next tick: the handler itself writes nothing. A resize that lands between
// a tick's read and its clear waits for the next redraw (a run's start or end): nothing is lost but a frame.
volatile sig_atomic_t g_resized = 0;

void note_resize(int) { g_resized = 1; }

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::size_t characters(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !continuation_byte(c); }));
}

}  // namespace

std::string fit_to_columns(const std::string& text, std::size_t columns) {
  if (characters(text) <= columns) return text;
  const std::size_t keep = columns > 3 ? columns - 3 : 0;
  std::size_t end = 0;
  for (std::size_t kept = 0; end < text.size() && kept < keep; ++kept) {
    ++end;
    while (end < text.size() && continuation_byte(text[end])) ++end;
  }
  return text.substr(0, end) + std::string("...").substr(0, std::min<std::size_t>(3, columns));
}

SuiteProgress::SuiteProgress(std::size_t total, bool verbose)
    : total_(total), verbose_(verbose), live_(live_terminal(STDOUT_FILENO)) {
  if (!live_) return;
  struct sigaction action {};
  action.sa_handler = &note_resize;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGWINCH, &action, &previous_winch_);
}

SuiteProgress::~SuiteProgress() {
  if (live_) ::sigaction(SIGWINCH, &previous_winch_, nullptr);
}

void SuiteProgress::started(const SuiteItem& item) {
  std::lock_guard lock(mutex_);
  running_.push_back(item.scenario + (item.implementation ? " [" + *item.implementation + "]" : ""));
  redraw();
}

void SuiteProgress::ended(const ScenarioResult& result) {
  std::lock_guard lock(mutex_);
  ++ended_;
  clear();
  if (result.status() != ResultStatus::Skipped || verbose_) std::cout << one_line_report(result) << "\n";
  if (!running_.empty()) running_.erase(running_.begin());  // oldest first: close enough for a status line
  redraw();
}

void SuiteProgress::done() {
  std::lock_guard lock(mutex_);
  clear();
  running_.clear();
  std::cout << std::flush;
}

std::optional<Verdict> SuiteProgress::on_tick(pid_t) {
  if (!live_) return std::nullopt;
  std::lock_guard lock(mutex_);  // every worker ticks: one of them takes the flag
  if (g_resized != 0) {
    g_resized = 0;
    redraw();
  }
  return std::nullopt;
}

void SuiteProgress::clear() {
  if (live_) std::cout << "\r\033[K";
}

void SuiteProgress::redraw() {
  if (!live_) {
    std::cout << std::flush;
    return;
  }
  std::string line = "[" + std::to_string(ended_) + "/" + std::to_string(total_) + "] running:";
  for (const std::string& name : running_) line += " " + name;
  // One column short of the width: a line that fills the last column wraps on some terminals.
  const std::size_t width = columns();
  std::cout << "\r\033[K" << fit_to_columns(line, width > 1 ? width - 1 : 1) << std::flush;
}

std::size_t SuiteProgress::columns() const {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace gilsan
