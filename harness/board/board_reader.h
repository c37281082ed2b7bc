// BoardReader: the parent's consistent reads of the board (and the two things the parent writes: the
// stack-request number and the crash acknowledgement). Reads never block the child: a seqlock read
// that keeps colliding with writes gives up after a bounded number of tries and says so
// (ThreadRecord::consistent == false).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "harness/board/board_layout.h"
#include "harness/board/board_records.h"

namespace gilsan::board {

class BoardReader {
 public:
  explicit BoardReader(Board& board) : board_(board) {}

  ProgressCounters progress() const;
  std::uint64_t device_busy_until_ns() const;
  int stack_sample_signal() const;
  int python_stack_signal() const;
  std::optional<CrashRecord> crash() const;

  std::vector<ThreadRecord> threads() const;  // every claimed slot, including exited threads'
  std::optional<ThreadRecord> thread(int tid) const;
  std::vector<HostFunctionRecord> pending_host_functions() const;
  std::vector<EventRecord> events() const;
  BoardContents read() const;

  // Starts a round of native-stack sampling: returns the number that the threads' stack_answer will
  // carry once their handler has run for this round.
  std::uint64_t begin_stack_request();
  // Lets a crashing thread, waiting in its handler, go on and die.
  void acknowledge_crash();

 private:
  Board& board_;
};

}  // namespace gilsan::board
