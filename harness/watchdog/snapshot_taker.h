// Takes a Snapshot of a live child: /proc first (before any signal disturbs the threads), then native
// stacks, then Python stacks, then the board, then symbols. Every gap in the evidence becomes a note.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>

#include "harness/board/board_reader.h"
#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/symbolizer.h"

namespace gilsan::watchdog {

struct SnapshotOptions {
  std::chrono::milliseconds native_stack_timeout{200};
  std::chrono::milliseconds python_stack_timeout{500};
  std::chrono::milliseconds python_stack_idle_gap{30};
  int python_stack_fd = -1;  // read end of the child's faulthandler pipe; -1: no Python stacks
};

// `symbolizer`: the caller's symbolizer of `pid`, kept across snapshots and stack checks so that each
// file's symbol table is read once per run; its address map is read again here.
Snapshot take_snapshot(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                       const SnapshotOptions& options, std::uint64_t last_progress_ns);

// Samples and names the native stacks of every thread of `pid` now, for `symbolizer`'s caches only: a
// snapshot soon after (a certain cycle under confirmation, whose threads cannot move) then finds their
// file:line looked up already, and names its frames in about a millisecond instead of tens.
void name_native_stacks_ahead(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                              const SnapshotOptions& options);

// What /proc and the board say, without a signal or a stack: cheap enough for every sample of a quiet
// stretch (certain_cycle.h).
Snapshot take_board_view(pid_t pid, board::BoardReader& reader, std::uint64_t last_progress_ns);

}  // namespace gilsan::watchdog
