#include "harness/watchdog/native_stacks.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "harness/text/errno_text.h"

namespace gilsan::watchdog {

NativeStackRound sample_native_stacks(pid_t pid, board::BoardReader& reader, const std::vector<int>& tids,
                                      int skip_tid, std::chrono::milliseconds timeout) {
  NativeStackRound round;
  int signal_number = reader.stack_sample_signal();
  if (signal_number == 0) {
    for (int tid : tids) {
      if (tid != skip_tid) round.missing[tid] = "the child installed no stack sampler";
    }
    return round;
  }
  std::uint64_t request = reader.begin_stack_request();
  std::set<int> waiting;
  for (int tid : tids) {
    if (tid == skip_tid) continue;
    if (::syscall(SYS_tgkill, pid, tid, signal_number) == 0) {
      waiting.insert(tid);
    } else {
      round.missing[tid] = std::string("tgkill failed: ") + errno_text(errno);
    }
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!waiting.empty()) {
    for (const board::ThreadRecord& record : reader.threads()) {
      if (waiting.count(record.tid) != 0 && record.stack_answer == request && record.consistent) {
        round.stacks[record.tid] = record.frames;
        round.gil[record.tid] = record.gil_at_stack;
        waiting.erase(record.tid);
      }
    }
    if (waiting.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (int tid : waiting) {
    round.missing[tid] = "no answer to signal " + std::to_string(signal_number) + " within " +
                         std::to_string(timeout.count()) + " ms (signal blocked, or thread in uninterruptible sleep)";
  }
  return round;
}

}  // namespace gilsan::watchdog
