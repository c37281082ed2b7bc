#include "harness/command/run_progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string_view>

namespace gilsan {

bool live_terminal(int fd) {
  const char* term = std::getenv("TERM");  // NOLINT(concurrency-mt-unsafe): read on the main thread
  return ::isatty(fd) == 1 && (term == nullptr || std::string_view(term) != "dumb");
}

RunProgressHook::RunProgressHook(std::string name, double timeout_seconds)
    : name_(std::move(name)), timeout_seconds_(timeout_seconds), live_(live_terminal(STDERR_FILENO)) {}

RunProgressHook::~RunProgressHook() {
  if (shown_second_ >= 0) write("\r\033[K");
}

void RunProgressHook::on_start(pid_t) { started_ = std::chrono::steady_clock::now(); }

std::optional<Verdict> RunProgressHook::on_tick(pid_t) {
  if (!live_) return std::nullopt;
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
  if (elapsed < kQuietStart || elapsed.count() == shown_second_) return std::nullopt;
  shown_second_ = elapsed.count();
  std::string line = "\r\033[Kgilsan: running " + name_ + ": " + std::to_string(shown_second_) + " s";
  // A program run's "timeout" of a week is none.
  if (timeout_seconds_ < 24 * 3600) line += " of " + std::to_string(std::llround(timeout_seconds_)) + " s";
  write(line);
  return std::nullopt;
}

void RunProgressHook::write(const std::string& text) const {
  // Best effort: a terminal that went away must not change the run.
  const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
  (void)written;
}

}  // namespace gilsan
