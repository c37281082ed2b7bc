#include "harness/runner/watchdog_hook.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>
#include <utility>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include "harness/board/board_layout.h"
#include "harness/board/board_region.h"
#include "harness/runner/process_group.h"
#include "harness/runner/run_folders.h"
#include "harness/watchdog/report.h"

namespace gilsan {
namespace {

// Above the descriptors the spawn places (0-3) and the supervisor's own pipes' usual range, so the
// dup2 in the child cannot overwrite another inherited end.
constexpr int kLowestParentFd = 10;

UniqueFd moved_high(int fd) {
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kLowestParentFd);
  const int error = errno;
  ::close(fd);
  if (high < 0) throw std::system_error(error, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(high);
}

double milliseconds_between(std::uint64_t from_ns, std::uint64_t to_ns) {
  return to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e6 : 0.0;
}

}  // namespace

bool running_under_valgrind() {
#if __has_include(<valgrind/valgrind.h>)
  if (RUNNING_ON_VALGRIND) return true;
#endif
  // Without the header: valgrind preloads its vgpreload_*.so into the program it runs.
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::strstr(preload, "vgpreload") != nullptr;
}

WatchdogHook::WatchdogHook(WatchdogSettings settings, watchdog::DriverCallBlocksPredicate blocks_while_host_function_runs)
    : settings_(std::move(settings)),
      blocks_(std::move(blocks_while_host_function_runs)),
      guard_(board::BoardRegion::create({.name = run_folder_prefix("board", ::getpid())})) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  python_stack_read_ = moved_high(ends[0]);
  python_stack_write_ = moved_high(ends[1]);
  // The snapshot drains the pipe with poll and read; it must never block on an empty pipe.
  const int flags = ::fcntl(python_stack_read_.get(), F_GETFL);
  if (flags < 0 || ::fcntl(python_stack_read_.get(), F_SETFL, flags | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
}

void WatchdogHook::before_spawn(ChildCommand& command) {
  command.environment.push_back(guard_.board().env_entry());
  command.environment.push_back(std::string(kPythonStackFdVariable) + "=" + std::to_string(kPythonStackFdInChild));
  command.inherited_fds.emplace_back(python_stack_write_.get(), kPythonStackFdInChild);
}

void WatchdogHook::on_start(pid_t child) {
  // The child has its copy of the write end; ours would keep the pipe from ever reaching end of file.
  python_stack_write_.reset();
  watchdog::WatchdogOptions options;
  options.quiet = settings_.quiet;
  options.under_valgrind = running_under_valgrind() || settings_.under_tool_factor > 0;
  if (settings_.under_tool_factor > 0) options.valgrind_factor = settings_.under_tool_factor;
  options.snapshot.python_stack_fd = python_stack_read_.get();
  options.blocks_while_host_function_runs = blocks_;
  // A diagnostic for "why did (or didn't) it call this a hang?" (docs/watchdog.md).
  if (const char* trace = std::getenv("GILSAN_WATCHDOG_TRACE"); trace != nullptr) options.trace_path = trace;
  watchdog_.emplace(child, guard_.board().board(), options);
}

std::optional<Verdict> WatchdogHook::on_tick(pid_t child) {
  if (!watchdog_) return std::nullopt;
  std::optional<watchdog::Detection> detection = watchdog_->tick();
  if (!detection) return std::nullopt;
  const bool hang = detection->kind == watchdog::DetectionKind::Hang;
  watchdog::HangReport report = watchdog::make_report(std::move(*detection), blocks_);
  // A hang the snapshot cannot explain, or explains only through a native condition variable's guessed
  // notifier, may be slow work it cannot see: watch on for longer first.
  if (hang && watchdog::needs_the_longer_watch(report) && watchdog_->defer_unexplained_hang(board::monotonic_ns()))
    return std::nullopt;
  record(report);
  if (!hang) return std::nullopt;  // a crash: the child dies of its signal once acknowledged
  // The snapshot is taken; a deadlocked process has nothing left to do cleanly, so it goes at once.
  signal_process_group(child, SIGKILL);
  return Verdict{Outcome{OutcomeKind::Deadlock, findings_->class_name}, findings_->summary};
}

void WatchdogHook::on_timeout(pid_t) {
  if (!watchdog_ || watchdog_->detected() || findings_) return;
  watchdog::Detection detection = watchdog_->snapshot_now(watchdog::DetectionKind::Timeout);
  detection.detected_ns = detection.snapshot.taken_ns;
  record(watchdog::make_report(std::move(detection), blocks_));
}

void WatchdogHook::record(const watchdog::HangReport& report) {
  const std::uint64_t last_progress_ns = watchdog_->last_progress_ns();
  WatchdogFindings findings;
  findings.kind = report.kind;
  findings.class_name = report.class_name;
  findings.summary = report.summary;
  findings.text = watchdog::render_text(report);
  findings.full_text = watchdog::render_text(report, watchdog::TextDetail::Full);
  findings.json = watchdog::render_json(report);
  findings.dot = watchdog::render_dot(report);
  if (settings_.dot_path) {
    std::ofstream stream(*settings_.dot_path, std::ios::binary | std::ios::trunc);
    stream << findings.dot;
    stream.close();
    if (!stream) findings.dot_error = "cannot write the wait-for graph to " + *settings_.dot_path;
  }
  if (report.kind == watchdog::DetectionKind::Hang && last_progress_ns != 0)
    findings.onset_to_report_ms = milliseconds_between(last_progress_ns, board::monotonic_ns());
  findings_ = std::move(findings);
}

void WatchdogHook::finish(pid_t child) {
  if (child > 0) {
    guard_.set_child(child, child);
    guard_.child_reaped();
  }
  guard_.finish();
}

}  // namespace gilsan
