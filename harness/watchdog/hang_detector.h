// HangDetector: decides "hung" from a stream of observations, with no I/O of its own (the Watchdog
// feeds it from the board, /proc and native stacks), so its rules are unit-testable with made-up numbers.
//
// Hung means: no progress for `quiet_ns` AND some thread has been blocked for `quiet_ns`.
//   Progress: a board counter changed (driver call returned, host function returned, device work
//     completed or beat), declared device work is still running (device_busy_until), or a thread that
//     is not blocked used the CPU for at least `cpu_progress_fraction` of the time between samples
//     (pure Python or native computation) -- unless it spins in a driver call (below).
//   Blocked: the board says the thread waits (in a driver call, for the GIL, for a lock, or inside a
//     host function while the kernel says it waits) -- "strong"; or only the kernel says it waits
//     (futex, poll, read...) -- "weak", which counts only while no thread of the process is in one
//     long sleep (nanosleep without waking up since it was first seen sleeping): such a thread means
//     the process waits for time, and idle worker threads always sit in futex waits. Threads that
//     sleep and wake periodically (timer loops, sanitizer runtimes' background threads) do not hold
//     weak waits back.
//   Spinning: the real driver spin-waits in synchronizing calls (CU_CTX_SCHED_AUTO with more cores
//     than GPUs), and a call made through ctypes or a peer library writes nothing on the board, so
//     such a thread looks like computation. Once the counters have been quiet for `quiet_ns`,
//     threads_to_check() names the threads whose CPU use would count as progress; the Watchdog looks
//     at their native stacks and fills ThreadActivity::stack_checked / spinning_in. A thread inside a
//     CUDA driver or runtime entry point is strongly blocked ("spinning in NAME"), since the last
//     counter progress or the last check that saw it computing elsewhere, whichever is later; its CPU
//     use is not progress. It is checked again at every sample, so one that leaves the driver
//     computes again.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/board/board_records.h"
#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

struct ProgressSample {
  board::ProgressCounters counters{};
  std::uint64_t device_busy_until_ns = 0;
};

struct ThreadActivity {
  enum class Blocking { None, Weak, Strong };
  int tid = 0;
  Blocking blocking = Blocking::None;
  std::string blocked_on;               // identifies this wait; a different string is a new wait
  std::uint64_t blocked_since_ns = 0;   // when the board knows it; 0: since first seen
  bool sleeping = false;                // in nanosleep / clock_nanosleep
  std::uint64_t timeslices = 0;         // changes when the thread runs, e.g. a sleeper waking up
  std::uint64_t cpu_ns = 0;
  // Filled by the Watchdog for the threads threads_to_check() named: whether their native stack was
  // read, and the CUDA driver or runtime entry point it shows them in ("" when none).
  bool stack_checked = false;
  std::string spinning_in;
};

// How a thread looks to the detector, from its board record and /proc state (either may be null).
ThreadActivity describe_activity(int tid, const ProcThreadState* proc, const board::ThreadRecord* record);

struct HangVerdict {
  bool hung = false;
  std::vector<int> blocked_tids;  // blocked for the whole quiet period
};

class HangDetector {
 public:
  struct Options {
    std::uint64_t quiet_ns = 500'000'000;
    double cpu_progress_fraction = 0.2;
  };

  explicit HangDetector(Options options) : options_(options) {}

  // Returns true when this sample shows progress (and restarts the quiet period).
  bool observe_progress(std::uint64_t now_ns, const ProgressSample& sample);
  HangVerdict observe_threads(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads);
  // Progress neither the counters nor the threads show (a child process at work): the quiet period
  // starts over, as after a counter moved.
  void observe_progress_elsewhere(std::uint64_t now_ns) { restart_from_counters(now_ns); }

  // Threads whose native stack the Watchdog should read before the next observe_threads(): once the
  // counters have been quiet for the quiet period, those that use the CPU (their use would count as
  // progress) and those last seen spinning in a driver call. Empty before that.
  std::vector<int> threads_to_check(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads) const;

  std::uint64_t last_progress_ns() const { return last_progress_ns_; }
  std::uint64_t quiet_ns() const { return options_.quiet_ns; }

 private:
  struct Blocked {
    std::string on;
    std::uint64_t since_ns = 0;
  };

  void restart(std::uint64_t now_ns);
  // A board counter moved (or device work is declared): everything starts over.
  void restart_from_counters(std::uint64_t now_ns);
  // The thread used at least cpu_progress_fraction of a CPU since the previous sample.
  bool uses_cpu(const ThreadActivity& thread, std::uint64_t interval_ns) const;
  std::uint64_t interval_since_last_sample(std::uint64_t now_ns) const;

  Options options_;
  bool started_ = false;
  ProgressSample last_sample_;
  std::uint64_t last_progress_ns_ = 0;
  std::uint64_t last_counter_progress_ns_ = 0;
  std::uint64_t last_thread_sample_ns_ = 0;
  // Whether any thread is in one long sleep now; remembers sleepers seen waking.
  bool someone_sleeps_long(const std::vector<ThreadActivity>& threads);

  std::map<int, Blocked> blocked_;
  std::map<int, std::uint64_t> cpu_ns_;
  std::map<int, std::uint64_t> sleep_timeslices_;  // timeslices when first seen in this sleep
  std::set<int> periodic_sleepers_;
  // Since the last counter progress: when each thread last counted as computing, and when a stack
  // check last saw it computing outside the driver (real work, even if it spins now).
  std::map<int, std::uint64_t> computed_ns_;
  std::map<int, std::uint64_t> computed_outside_driver_ns_;
  std::set<int> spinners_;  // seen spinning in a driver call at the last sample
};

}  // namespace gilsan::watchdog
