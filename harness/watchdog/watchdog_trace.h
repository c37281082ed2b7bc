// WatchdogTrace: an optional line-per-sample log of what the watchdog saw and decided, for the
// question "why did (or didn't) it call this a hang?". The runner turns it on with
// GILSAN_WATCHDOG_TRACE=FILE (docs/watchdog.md); off, every method returns at once.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "harness/watchdog/hang_detector.h"

namespace gilsan::watchdog {

class WatchdogTrace {
 public:
  WatchdogTrace() = default;
  // Appends to `path`; an empty path, or one that cannot be opened, leaves the trace off (the run
  // goes on: a trace is a diagnostic, never a reason to fail).
  explicit WatchdogTrace(const std::string& path);
  ~WatchdogTrace();
  WatchdogTrace(const WatchdogTrace&) = delete;
  WatchdogTrace& operator=(const WatchdogTrace&) = delete;

  bool on() const { return file_ != nullptr; }
  // The board showed progress (counters changed or declared device work runs); logged once per run
  // of consecutive progress samples.
  void progress(std::uint64_t now_ns);
  // One thread sample: each thread's activity, what the stack check found for the threads it looked
  // at (entry point, why no stack, innermost frames), and the verdict.
  void sample(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads,
              const std::map<int, std::string>& missing, const std::map<int, std::string>& frames,
              const HangVerdict& verdict);

 private:
  std::FILE* file_ = nullptr;
  std::uint64_t start_ns_ = 0;
  bool in_progress_ = false;
  std::map<int, std::uint64_t> cpu_ns_;
};

}  // namespace gilsan::watchdog
