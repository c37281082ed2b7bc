// Watchdog: the parent's supervision of one child. The runner calls tick() from its supervision loop
// (every 10-50 ms); tick() returns a Detection once: when the child hangs (HangDetector's rule) or when
// its crash reporter announces a fatal signal. The caller then classifies the snapshot
// (classifier.h), writes the reports (report.h) and cleans up (process_cleanup.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/board/board_layout.h"
#include "harness/board/board_reader.h"
#include "harness/watchdog/certain_cycle.h"
#include "harness/watchdog/descendant_activity.h"
#include "harness/watchdog/hang_detector.h"
#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/snapshot_taker.h"
#include "harness/watchdog/spin_check.h"
#include "harness/watchdog/symbolizer.h"
#include "harness/watchdog/watchdog_trace.h"

namespace gilsan::watchdog {

// 500 ms: see docs/watchdog.md ("Why 500 ms").
inline constexpr std::chrono::milliseconds kDefaultQuiet{500};
inline constexpr unsigned kDefaultValgrindFactor = 20;

struct WatchdogOptions {
  std::chrono::milliseconds quiet = kDefaultQuiet;
  bool under_valgrind = false;  // the child runs under valgrind: quiet is multiplied
  unsigned valgrind_factor = kDefaultValgrindFactor;
  std::chrono::milliseconds thread_sample_interval{20};
  double cpu_progress_fraction = 0.2;
  // How long a stack check waits for a busy thread to answer the sampling signal (spin_check.h);
  // multiplied by valgrind_factor under valgrind, like the quiet period.
  std::chrono::milliseconds spin_check_timeout{50};
  std::string trace_path;  // non-empty: a line-per-sample trace of the detector (watchdog_trace.h)
  SnapshotOptions snapshot;
  // A hang whose snapshot explains nothing (class unknown: no cycle, nothing known to be waited for)
  // is reported only after this many quiet periods: slow work the watchdog cannot see (a driver
  // initializing under load, device work on a GPU other processes share) looks the same for a while.
  unsigned unexplained_quiet_factor = 10;
  // A cycle whose every edge is on the board is reported once it has held this long, without waiting
  // out the quiet period (certain_cycle.h); multiplied by valgrind_factor under valgrind. Needs the
  // profile's answer to "does this call block while a host function runs": without it, off.
  std::chrono::milliseconds certain_confirmation{50};
  // While such a cycle is being confirmed, the looks come this often instead of every
  // thread_sample_interval: the report is not late by a sample for want of a look. Below the runner's
  // 10 ms tick, so that every tick looks (a tick that comes a little early would otherwise skip).
  std::chrono::milliseconds confirmation_sample_interval{5};
  DriverCallBlocksPredicate blocks_while_host_function_runs;

  std::chrono::milliseconds effective_quiet() const { return under_valgrind ? quiet * valgrind_factor : quiet; }
  std::chrono::milliseconds effective_unexplained_quiet() const { return effective_quiet() * unexplained_quiet_factor; }
  std::chrono::milliseconds effective_certain_confirmation() const {
    return under_valgrind ? certain_confirmation * valgrind_factor : certain_confirmation;
  }
};

// Timeout: no detection of the watchdog's own; the runner's timeout passed and the snapshot was taken
// before the kill, so that a run that timed out says what every thread was doing.
enum class DetectionKind { Hang, Crash, Timeout };
const char* to_string(DetectionKind kind);

struct Detection {
  DetectionKind kind = DetectionKind::Hang;
  Snapshot snapshot;
  std::uint64_t detected_ns = 0;   // when tick() decided
  std::uint64_t reported_ns = 0;   // when the snapshot was complete
  std::uint64_t quiet_ns = 0;      // the quiet period in force
  std::vector<int> blocked_tids;   // threads blocked for the whole quiet period (hangs)
  // A hang reported before the quiet period because every edge of its cycle is on the board: how
  // long that cycle had held (certain_cycle.h); 0 for every other detection.
  std::uint64_t certain_for_ns = 0;
};

// Driven from one thread (the runner's supervision loop): tick() and snapshot_now() share the
// symbolizer and the board reader without locks.
class Watchdog {
 public:
  Watchdog(pid_t pid, board::Board& board, WatchdogOptions options = {});
  // The spin check keeps references to the reader and the symbolizer below.
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  std::optional<Detection> tick();
  std::optional<Detection> tick(std::uint64_t now_ns);  // CLOCK_MONOTONIC ns

  // A snapshot on demand, e.g. when the runner's own timeout fires first. Does not count as the
  // watchdog's detection.
  Detection snapshot_now(DetectionKind kind);

  bool detected() const { return detected_; }

  // After a tick() whose hang needs the longer watch (needs_the_longer_watch, report.h): true, and the
  // watchdog watches on, when the quiet has not yet lasted effective_unexplained_quiet(), or when it has
  // but a child process of the program's moved (the quiet starts over); the next detection comes no
  // earlier than that. False otherwise: the caller reports the hang.
  bool defer_unexplained_hang(std::uint64_t now_ns);
  std::uint64_t last_progress_ns() const { return detector_.last_progress_ns(); }

 private:
  // What each live thread of a board view is doing, for the hang detector.
  static std::vector<ThreadActivity> activities_of(const Snapshot& view);
  // Reads the stacks of the threads the detector names and fills their stack_checked / spinning_in.
  void check_for_driver_spins(std::uint64_t now_ns, std::vector<ThreadActivity>& activities);
  void open_source_lines_when_half_quiet(std::uint64_t now_ns);

  pid_t pid_;
  board::BoardReader reader_;
  WatchdogOptions options_;
  HangDetector detector_;
  // One per child, for the stack checks and the snapshot: each file's symbols are read once per run.
  Symbolizer symbolizer_;
  DriverSpinCheck spin_check_;
  DescendantActivity descendants_;
  bool spin_checked_ = false;  // the stack check ran at this sample (its last_* maps are current)
  WatchdogTrace trace_;
  std::uint64_t last_thread_sample_ns_ = 0;
  std::uint64_t deferred_until_ns_ = 0;  // no detection before this (an unexplained hang was deferred)
  std::uint64_t opened_ahead_for_ns_ = 0;  // the progress time of the quiet stretch already opened for
  std::uint64_t named_ahead_for_ns_ = 0;   // the same for name_native_stacks_ahead
  CertainCycleWatch certain_;
  bool detected_ = false;
};

}  // namespace gilsan::watchdog
