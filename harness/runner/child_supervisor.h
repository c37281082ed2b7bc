// ChildSupervisor: the parent's side of one scenario run. It drains the child's pipes, enforces the
// timeout, lets hooks look at the child every tick, and ends with the child and its whole process
// group gone.
//
// The tick is where the hang detector plugs in: a SupervisionHook sees the child every ~25 ms and
// may return a Verdict (e.g. deadlock:gil-driver-inversion, after taking its snapshot); the
// supervisor then terminates the group exactly as on a timeout and reports that verdict.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "harness/runner/child_process.h"
#include "harness/scenario/child_report.h"
#include "harness/scenario/outcome.h"

namespace gilsan {

struct Verdict {
  Outcome outcome;
  std::string explanation;  // the hook's report text, kept in the run report
};

class SupervisionHook {
 public:
  virtual ~SupervisionHook() = default;
  // Once, before the child is started: a hook may add to its environment and inherited descriptors.
  virtual void before_spawn(ChildCommand& command) { (void)command; }
  // Once, after the child started and before the first tick.
  virtual void on_start(pid_t child) { (void)child; }
  // Every tick while the child runs and no verdict or timeout has ended the run.
  virtual std::optional<Verdict> on_tick(pid_t child) = 0;
  // Once, when the run's timeout has passed, before the child is signalled: the last look at it alive.
  virtual void on_timeout(pid_t child) { (void)child; }
};

struct SupervisionSettings {
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds tick{25};
  // Between SIGTERM and SIGKILL: long enough for Python to die of SIGTERM, short for a stuck child.
  std::chrono::milliseconds termination_grace{2'000};
  // After the child ended: how long to wait for the rest of its group to die and its pipes to close.
  std::chrono::milliseconds cleanup_limit{5'000};
  std::size_t output_limit_bytes = std::size_t{16} * 1024 * 1024;
  // --max-rss: the child's process tree is killed (SIGKILL, as the kernel's OOM killer would) once
  // its resident memory passes this (resident_memory.h). Checked every tick, so a process that
  // allocates fast passes it by what it allocates in one tick.
  std::optional<std::size_t> max_resident_bytes;
};

struct SupervisedRun {
  int wait_status = 0;              // the child's raw waitpid status
  bool timed_out = false;
  bool memory_limit_exceeded = false;  // --max-rss ended it
  std::size_t peak_resident_bytes = 0;  // of the process tree, measured only under --max-rss
  std::optional<Verdict> verdict;   // from a hook
  bool needed_sigkill = false;      // the child outlived SIGTERM by the grace period
  std::string stdout_text;
  std::string stderr_text;
  std::size_t stdout_dropped_bytes = 0;
  std::size_t stderr_dropped_bytes = 0;
  ChildReport report;
  int leftover_processes = 0;       // other processes of the group, killed and reaped after the child
  bool group_survived = false;      // a process of the group outlived the cleanup limit
  std::chrono::duration<double> elapsed{};
};

class ChildSupervisor {
 public:
  ChildSupervisor(SpawnedChild child, SupervisionSettings settings);
  ChildSupervisor(const ChildSupervisor&) = delete;
  ChildSupervisor& operator=(const ChildSupervisor&) = delete;
  // If run() did not complete (it threw), kills and reaps the group so that nothing is left behind.
  ~ChildSupervisor();

  // Hooks are not owned; they must outlive run().
  void add_hook(SupervisionHook& hook) { hooks_.push_back(&hook); }

  // Returns once the child is reaped, its group killed and reaped, and its pipes drained.
  SupervisedRun run();

 private:
  SpawnedChild child_;
  SupervisionSettings settings_;
  std::vector<SupervisionHook*> hooks_;
  bool finished_ = false;
};

}  // namespace gilsan
