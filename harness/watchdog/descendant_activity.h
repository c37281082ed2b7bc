// A program that waits for child processes of its own (subprocess.run, a pool of worker processes, a
// compiler it started) shows every thread of its own waiting in wait4 or poll while the work goes on
// elsewhere. Their work is the run's progress: the hang detector sees only the watched process's
// threads, so before it calls a hang, the watchdog asks whether a descendant moved.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>

namespace gilsan::watchdog {

class DescendantActivity {
 public:
  explicit DescendantActivity(pid_t root) : root_(root) {}

  // Looks at every descendant of the root now (from /proc). True when one of them used a CPU since
  // the last look, started since then, runs now or sleeps on a timer (it wakes by itself); false when
  // there are none, or each waits as it did at the last look (a child that hangs is the run's hang).
  bool moved_since_last_look();

 private:
  pid_t root_;
  std::map<int, std::uint64_t> cpu_ns_by_tid_;  // at the last look, every thread of every descendant
};

}  // namespace gilsan::watchdog
