// A thread's wait for a contended native lock, as the board shows it: what the lock is, who holds it
// by the lock's own word, and where the caller asked for it. Kept current while the thread waits.
#pragma once

#include <cerrno>
#include <cstdint>
#include <ctime>

#include "harness/board/board_layout.h"

namespace gilsan::nativelocks {

// Takes the lock by calling `try_until(deadline)` (a timed acquire) again each time it times out,
// reading the holder afresh with `holder()` between tries, and records the wait on the board for as
// long as it lasts. Returns the first result that is not ETIMEDOUT.
template <typename TryUntil, typename Holder>
int wait_for_lock(const void* lock, board::LockKind kind, const void* call_site, TryUntil try_until, Holder holder);

// Internal to the template: the board writes, in one place.
void begin_wait(const void* lock, board::LockKind kind, int holder_tid, const void* call_site);
void note_holder(int holder_tid);
void end_wait();
// CLOCK_REALTIME (the clock pthread's timed acquires take) a short while from now: how often a waiting
// thread looks at who holds its lock.
struct timespec next_look_deadline();

template <typename TryUntil, typename Holder>
int wait_for_lock(const void* lock, board::LockKind kind, const void* call_site, TryUntil try_until, Holder holder) {
  begin_wait(lock, kind, holder(), call_site);
  int result = 0;
  for (;;) {
    const struct timespec deadline = next_look_deadline();
    result = try_until(&deadline);
    if (result != ETIMEDOUT) break;
    note_holder(holder());
  }
  end_wait();
  return result;
}

}  // namespace gilsan::nativelocks
