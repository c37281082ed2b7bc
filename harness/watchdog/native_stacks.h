// The parent's side of native stacks: one signal per thread (tgkill), answered by the sampler the
// child installed (gilsan::board::install_stack_sampler), which writes return addresses into the
// thread's board slot.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/board/board_reader.h"

namespace gilsan::watchdog {

struct NativeStackRound {
  std::map<int, std::vector<std::uint64_t>> stacks;  // tid -> raw frames (frames[0] interrupted pc)
  std::map<int, std::string> missing;                // tid -> why there is no stack
  std::map<int, board::GilState> gil;                // tid -> the GIL as the interpreter had it then
};

// Signals every thread in `tids` except `skip_tid` (a crashing thread, whose crash stack is already on
// the board) and waits, at most `timeout`, until each has answered.
NativeStackRound sample_native_stacks(pid_t pid, board::BoardReader& reader, const std::vector<int>& tids,
                                      int skip_tid, std::chrono::milliseconds timeout);

}  // namespace gilsan::watchdog
