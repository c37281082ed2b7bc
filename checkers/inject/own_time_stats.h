// OwnTimeStats: how long libgilsan_inject.so's own code runs, when GILSAN_OPTIONS has stats=1, so that
// its overhead can be told apart from CUPTI's and the driver's: its CUPTI callbacks (launch entry
// points apart from the rest) and its host-function wrapper on the driver's callback thread (the
// user's function excluded). Printed at exit as one line. The clock reads themselves (two per
// timed piece, tens of nanoseconds) are part of what it shows, so it runs slower than without.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace gilsan::checkers::inject {

class OwnTimeStats {
 public:
  using Clock = std::chrono::steady_clock;

  void add_launch_callback(Clock::duration took) { add(launch_, took); }
  void add_other_callback(Clock::duration took) { add(other_, took); }
  void add_wrapper(Clock::duration took) { add(wrapper_, took); }

  // "gilsan: own time: 20000 launch callbacks, 85 ns each; ..." (counts and mean per piece).
  std::string summary() const;

 private:
  struct Tally {
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> nanoseconds{0};
  };
  static void add(Tally& tally, Clock::duration took) {
    tally.count.fetch_add(1, std::memory_order_relaxed);
    tally.nanoseconds.fetch_add(static_cast<std::uint64_t>(std::chrono::nanoseconds(took).count()),
                                std::memory_order_relaxed);
  }
  // Apart: the launching and the callback thread update different lines.
  alignas(64) Tally launch_;
  alignas(64) Tally other_;
  alignas(64) Tally wrapper_;
};

}  // namespace gilsan::checkers::inject
