// A thread's wait for a contended native lock or a condition variable, as the board shows it: what it
// waits for, who holds it by the lock's own word, and where the caller asked for it. Kept current
// while the thread waits.
#pragma once

#include <cerrno>
#include <cstdint>
#include <ctime>

#include "harness/board/board_layout.h"

namespace gilsan::nativelocks {

// The board's record of one wait, for as long as this object lives. Nothing is written when the thread
// already waits on the record (a native wait inside a recorded one, such as the interpreter's own mutex
// while a Python lock acquire lets the GIL go: that outer wait stays), and the record is ended only by
// the one that wrote it. Ended by the destructor, so that a thread cancelled inside pthread_cond_wait
// (a cancellation point; the unwind runs destructors) leaves no wait behind.
class RecordedWait {
 public:
  RecordedWait(const void* lock, board::LockKind kind, int holder_tid, const void* call_site);
  RecordedWait(const RecordedWait&) = delete;
  RecordedWait& operator=(const RecordedWait&) = delete;
  ~RecordedWait();
  // The holder changed while the thread waited (another waiter got the lock first).
  void note_holder(int holder_tid) const;

 private:
  bool written_;
};

// Takes the lock by calling `try_until(deadline)` (a timed acquire) again each time it times out,
// reading the holder afresh with `holder()` between tries, and records the wait on the board for as
// long as it lasts. Returns the first result that is not ETIMEDOUT.
template <typename TryUntil, typename Holder>
int wait_for_lock(const void* lock, board::LockKind kind, const void* call_site, TryUntil try_until, Holder holder);

// CLOCK_REALTIME (the clock pthread's timed acquires take) a short while from now: how often a waiting
// thread looks at who holds its lock.
struct timespec next_look_deadline();

template <typename TryUntil, typename Holder>
int wait_for_lock(const void* lock, board::LockKind kind, const void* call_site, TryUntil try_until, Holder holder) {
  const RecordedWait recorded(lock, kind, holder(), call_site);
  for (;;) {
    const struct timespec deadline = next_look_deadline();
    const int result = try_until(&deadline);
    if (result != ETIMEDOUT) return result;
    recorded.note_holder(holder());
  }
}

}  // namespace gilsan::nativelocks
