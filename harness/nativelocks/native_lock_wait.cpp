#include "harness/nativelocks/native_lock_wait.h"

#include "harness/board/board_writer.h"

namespace gilsan::nativelocks {
namespace {

// How often a waiting thread looks again at who holds its lock: the holder can change while it waits
// (another waiter gets the lock first), and a hang is called after hundreds of milliseconds of quiet.
constexpr long kLookIntervalNs = 100'000'000;
constexpr long kNanosecondsPerSecond = 1'000'000'000;

}  // namespace

RecordedWait::RecordedWait(const void* lock, board::LockKind kind, int holder_tid, const void* call_site)
    : written_(board::begin_native_lock_wait(reinterpret_cast<std::uintptr_t>(lock), kind, holder_tid,
                                             reinterpret_cast<std::uintptr_t>(call_site))) {}

RecordedWait::~RecordedWait() {
  if (written_) board::end_lock_wait();
}

void RecordedWait::note_holder(int holder_tid) const {
  if (written_) board::note_lock_wait_holder(holder_tid);
}

struct timespec next_look_deadline() {
  struct timespec deadline {};
  ::clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += kLookIntervalNs;
  if (deadline.tv_nsec >= kNanosecondsPerSecond) {
    deadline.tv_nsec -= kNanosecondsPerSecond;
    ++deadline.tv_sec;
  }
  return deadline;
}

}  // namespace gilsan::nativelocks
