#include "harness/runner/child_supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "harness/runner/captured_output.h"
#include "harness/runner/process_group.h"
#include "harness/runner/resident_memory.h"
#include "harness/runner/run_marker.h"

namespace gilsan {
namespace {

using Clock = std::chrono::steady_clock;

// The three pipes of one child, drained together.
class ChildPipes {
 public:
  ChildPipes(SpawnedChild& child, std::size_t output_limit)
      : out_(std::move(child.stdout_pipe), output_limit),
        err_(std::move(child.stderr_pipe), output_limit),
        report_(std::move(child.report_pipe), 0) {}

  bool any_open() const { return out_.open() || err_.open() || report_.open(); }

  // Waits up to `wait` for data, then drains whatever is readable.
  void wait_and_drain(std::chrono::milliseconds wait) {
    std::vector<pollfd> fds;
    for (const CapturedOutput* pipe : {&out_, &err_, &report_})
      if (pipe->open()) fds.push_back({pipe->fd(), POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(0, wait.count())));
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (ready > 0) drain_all();
  }

  void drain_all() {
    out_.drain();
    err_.drain();
    reader_.feed(report_.drain());
  }

  void fill(SupervisedRun& run) {
    reader_.finish();
    run.report = reader_.report();
    run.stdout_text = out_.text();
    run.stderr_text = err_.text();
    run.stdout_dropped_bytes = out_.dropped_bytes();
    run.stderr_dropped_bytes = err_.dropped_bytes();
  }

 private:
  CapturedOutput out_;
  CapturedOutput err_;
  CapturedOutput report_;
  ChildReportReader reader_;
};

}  // namespace

ChildSupervisor::ChildSupervisor(SpawnedChild child, SupervisionSettings settings)
    : child_(std::move(child)), settings_(settings) {}

ChildSupervisor::~ChildSupervisor() {
  if (finished_) return;
  signal_process_group(child_.pid, SIGKILL);
  ::waitpid(child_.pid, nullptr, 0);
  kill_and_reap_process_group(child_.pid, settings_.cleanup_limit);
  if (!child_.run_marker.empty()) kill_marked_processes(child_.run_marker, settings_.cleanup_limit);
}

SupervisedRun ChildSupervisor::run() {
  SupervisedRun run;
  const pid_t pid = child_.pid;
  ChildPipes pipes(child_, settings_.output_limit_bytes);
  const auto started = Clock::now();
  const auto deadline = started + settings_.timeout;
  std::optional<Clock::time_point> kill_at;  // set once SIGTERM went out
  auto next_tick = started + settings_.tick;

  for (SupervisionHook* hook : hooks_) hook->on_start(pid);

  auto terminate = [&](Clock::time_point now) {
    signal_process_group(pid, SIGTERM);
    kill_at = now + settings_.termination_grace;
  };

  while (true) {
    const auto until_tick = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - Clock::now());
    pipes.wait_and_drain(std::max(until_tick, std::chrono::milliseconds(0)));

    int status = 0;
    const pid_t waited = ::waitpid(pid, &status, WNOHANG);
    if (waited == pid) {
      run.wait_status = status;
      break;
    }
    if (waited < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");

    const auto now = Clock::now();
    if (now < next_tick) continue;
    next_tick = now + settings_.tick;

    if (kill_at) {
      if (now >= *kill_at && !run.needed_sigkill) {
        signal_process_group(pid, SIGKILL);
        run.needed_sigkill = true;
      }
      continue;
    }
    if (now >= deadline) {
      run.timed_out = true;
      for (SupervisionHook* hook : hooks_) hook->on_timeout(pid);
      terminate(Clock::now());
      continue;
    }
    if (settings_.max_resident_bytes) {
      const std::size_t resident = resident_bytes_of_tree(pid);
      run.peak_resident_bytes = std::max(run.peak_resident_bytes, resident);
      if (resident > *settings_.max_resident_bytes) {
        // No grace period: given one, a process that is eating memory eats more.
        run.memory_limit_exceeded = true;
        signal_process_group(pid, SIGKILL);
        kill_at = now;
        run.needed_sigkill = true;
        continue;
      }
    }
    for (SupervisionHook* hook : hooks_) {
      if (std::optional<Verdict> verdict = hook->on_tick(pid)) {
        run.verdict = std::move(verdict);
        terminate(now);
        break;
      }
    }
  }

  // The child is gone; whatever else it started goes too, in its group or out of it (run_marker.h),
  // then the pipes reach end of file (unless a process that dropped the marker still holds them:
  // stop waiting at the cleanup limit).
  finished_ = true;
  const GroupCleanup cleanup = kill_and_reap_process_group(pid, settings_.cleanup_limit);
  run.leftover_processes = cleanup.reaped;
  if (!child_.run_marker.empty()) run.leftover_processes += kill_marked_processes(child_.run_marker, settings_.cleanup_limit);
  run.group_survived = !cleanup.group_gone;
  const auto stop_draining_at = Clock::now() + settings_.cleanup_limit;
  while (pipes.any_open() && Clock::now() < stop_draining_at) pipes.wait_and_drain(settings_.tick);
  pipes.drain_all();
  pipes.fill(run);
  run.elapsed = Clock::now() - started;
  return run;
}

}  // namespace gilsan
