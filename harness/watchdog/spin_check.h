// DriverSpinCheck: tells whether busy threads of the child are spin-waiting inside a CUDA driver or
// runtime entry point. The real driver spins in synchronizing calls by default, and a call made
// through ctypes or a peer library (CuPy) writes nothing on the board, so without this the spin looks
// like computation and hides a deadlock. The Watchdog asks only about the threads HangDetector names
// (busy threads once the board has been quiet for the quiet period), at each thread sample.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "harness/board/board_reader.h"
#include "harness/watchdog/symbolizer.h"

namespace gilsan::watchdog {

class DriverSpinCheck {
 public:
  static constexpr std::chrono::milliseconds kRetryPause{250};
  static constexpr std::chrono::milliseconds kLongestRetryPause{2000};

  // `symbolizer` is the watchdog's one symbolizer of this child, shared with its snapshots; it must
  // outlive the check and be used from the same thread.
  DriverSpinCheck(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                  std::chrono::milliseconds answer_timeout);

  // For each thread of `tids` whose native stack could be read: the driver or runtime entry point it
  // is in (normalized, e.g. "cuStreamSynchronize"), or "" when its stack shows none. Threads that
  // could not be sampled are left out (their CPU use stays progress). A thread that failed to answer
  // the sampling signal is asked again only after a pause that grows with each miss (kRetryPause
  // times the misses in a row, at most kLongestRetryPause), so a thread that never answers costs one
  // answer timeout now and then, not one per sample -- and one that missed once, e.g. while it had
  // signals blocked in a library's start-up, is still found spinning later.
  std::map<int, std::string> check(const std::vector<int>& tids);

  // What the last check saw, for the watchdog's trace: per thread, why it gave no stack, or its
  // innermost frames ("symbol (module)", unnamed frames as "? (module)").
  const std::map<int, std::string>& last_missing() const { return last_missing_; }
  const std::map<int, std::string>& last_frames() const { return last_frames_; }

 private:
  pid_t pid_;
  board::BoardReader& reader_;
  // Kept across checks: libcuda's symbol table is large, and a spinning thread is checked at every
  // sample. Only the address map is read again each time.
  Symbolizer& symbolizer_;
  std::chrono::milliseconds answer_timeout_;
  struct Misses {
    int in_a_row = 0;
    std::chrono::steady_clock::time_point ask_again_at;
  };
  std::map<int, Misses> unanswered_;
  std::map<int, std::string> last_missing_;
  std::map<int, std::string> last_frames_;
};

}  // namespace gilsan::watchdog
