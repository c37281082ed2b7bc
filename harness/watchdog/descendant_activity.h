// A program that waits for child processes of its own (subprocess.run, a pool of worker processes, a
// compiler it started) shows every thread of its own waiting in wait4 or poll while the work goes on
// elsewhere. Their work is the run's progress: the hang detector sees only the watched process's
// threads, so before it calls a hang, the watchdog asks whether a descendant moved.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>

namespace gilsan::watchdog {

class DescendantActivity {
 public:
  // cpu_progress_fraction: the share of a CPU a descendant's thread must have used since the previous
  // look for its use to count as work (the hang detector's rule for the program's own threads).
  DescendantActivity(pid_t root, double cpu_progress_fraction) : root_(root), cpu_progress_fraction_(cpu_progress_fraction) {}

  // Looks at every descendant of the root now (from /proc). True when one of their threads is new
  // since the previous look or ended since then (a zombie included), used at least the fraction of a
  // CPU since then, runs now, or sleeps one long sleep on a timer (it wakes by itself). A thread seen
  // sleeping at two looks that woke up and slept again in between is a poller, never counted again: a
  // helper process that sleeps in a loop is not the program's work, and a child that waits as it did
  // at the previous look is the run's hang.
  bool moved_since_last_look(std::uint64_t now_ns);

 private:
  struct Seen {
    std::uint64_t cpu_ns = 0;
    std::uint64_t timeslices = 0;
    bool sleeping = false;  // on a timer
  };

  pid_t root_;
  double cpu_progress_fraction_;
  std::uint64_t last_look_ns_ = 0;
  std::map<int, Seen> seen_;       // at the last look, every thread of every descendant
  std::set<int> periodic_sleepers_;  // woke up and slept again between two looks
};

}  // namespace gilsan::watchdog
