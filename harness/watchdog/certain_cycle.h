// CertainCycleWatch: a deadlock the board alone proves is reported without waiting out the quiet
// period (issue 32, item 6).
//
// The quiet period (500 ms) is there for what the watchdog cannot see: slow work, a driver
// initializing, a thread it infers from native frames. A cycle every edge of which the board states
// (the GIL's holder in a driver wait the profile says blocks, the stream's head host function on the
// callback thread, that thread waiting for the GIL) needs none of that: it is closed, and no thread
// of it can move. Such a cycle, seen at every look without progress in between for `confirmation`
// (50 ms: a board record between two writes of one transition is gone by then), is a hang. A cycle
// with an inferred edge still waits for the quiet period, as does any other hang.
//
// The looks are cheap (take_board_view: /proc and the board, no signal), one per thread sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/wait_graph_builder.h"

namespace gilsan::watchdog {

class CertainCycleWatch {
 public:
  // An empty predicate turns the watch off (every hang then waits for the quiet period).
  CertainCycleWatch(DriverCallBlocksPredicate blocks_while_host_function_runs, std::uint64_t confirmation_ns);

  bool on() const { return static_cast<bool>(blocks_); }
  // One look, taken at `now_ns` with no progress since the previous look: true when the same cycle of
  // board edges was seen at every look for at least the confirmation.
  bool confirmed(std::uint64_t now_ns, const Snapshot& view);
  // Progress: a cycle seen before must be seen afresh.
  void forget();
  // Whether the last look saw a cycle of board edges (confirmed or not yet).
  bool seeing_cycle() const { return !cycle_.empty(); }
  // How long the confirmed cycle has held at `now_ns`, and the threads in it.
  std::uint64_t held_ns(std::uint64_t now_ns) const { return cycle_.empty() ? 0 : now_ns - since_ns_; }
  const std::vector<int>& threads() const { return threads_; }

 private:
  DriverCallBlocksPredicate blocks_;
  std::uint64_t confirmation_ns_;
  std::string cycle_;  // the edges of the cycle seen last, "from>to" sorted; "" when none
  std::uint64_t since_ns_ = 0;
  std::vector<int> threads_;
};

}  // namespace gilsan::watchdog
