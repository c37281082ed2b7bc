#include "checkers/sources/python_lock_events.h"

#include <pthread.h>

#include <atomic>
#include <cstring>

#include "checkers/sources/thread_identity.h"
#include "harness/board/board_layout.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers {
namespace {

// Registered when the program starts, so that a fork made before the first lock event is known too.
std::atomic<bool> g_forked{false};
void note_fork() { g_forked.store(true, std::memory_order_relaxed); }
[[maybe_unused]] const bool g_fork_noted = (::pthread_atfork(nullptr, nullptr, note_fork), true);

// The core throws only std::bad_alloc; a C caller (ctypes, a builtin module) cannot take an exception,
// and a lock that goes unreported costs less than a process that terminates.
template <typename Event>
void feed(Sanitizer* sanitizer, Event&& event) {
  if (sanitizer == nullptr || g_forked.load(std::memory_order_relaxed)) return;
  try {
    event(*sanitizer);
  } catch (...) {
  }
}

// A board lock record keeps a short name. A longer one ("Lock of Queue at worker_pool.py:31") keeps its
// site, which is what tells two locks apart; the sanitizer's reports have the whole name.
const char* board_name(const char* name) {
  constexpr std::size_t kBoardNameBytes = decltype(board::LockSlot::name)::capacity();
  if (name == nullptr || std::strlen(name) <= kBoardNameBytes) return name;
  const char* site = std::strstr(name, " at ");
  return site != nullptr ? site + 4 : name;
}

}  // namespace

void python_lock_acquire_begin(Sanitizer* sanitizer, unsigned long long lock, const char* name, bool blocking) {
  // The core holds the lock from here on and draws its wait edges now: an acquire that hangs never
  // reaches python_lock_acquired, and the cycle must be reported before it does.
  feed(sanitizer, [&](Sanitizer& core) {
    core.lock_acquire({.thread = current_thread_id(),
                       .lock = lock,
                       .name = name != nullptr ? name : "",
                       .can_block = blocking,
                       .releases_gil_while_waiting = true,
                       .stack = {}});
  });
  if (blocking) board::begin_lock_wait(lock, board_name(name));
}

void python_lock_acquired(unsigned long long lock, const char* name) {
  board::end_lock_wait_for(lock);
  board::note_lock_acquired(lock, board_name(name));
}

void python_lock_acquire_failed(Sanitizer* sanitizer, unsigned long long lock) {
  board::end_lock_wait_for(lock);
  // The core has no "acquire abandoned" event; since the begin made this thread hold the lock, a
  // release takes exactly that hold back (the edges drawn stay: the thread did wait).
  feed(sanitizer, [&](Sanitizer& core) { core.lock_release(current_thread_id(), lock); });
}

void python_lock_released(Sanitizer* sanitizer, unsigned long long lock) {
  feed(sanitizer, [&](Sanitizer& core) { core.lock_release(current_thread_id(), lock); });
  // Only this thread's slot: a lock released by another thread than its taker stays on the taker's
  // slot (docs/watchdog.md says so).
  board::note_lock_released(lock);
}

void python_lock_destroyed(Sanitizer* sanitizer, unsigned long long lock) {
  feed(sanitizer, [&](Sanitizer& core) { core.lock_destroyed(lock); });
}

void python_notification_wait_begin(unsigned long long object, const char* name) {
  board::begin_notification_wait(object, board_name(name));
}

void python_notification_wait_end() { board::end_lock_wait(); }

}  // namespace gilsan::checkers
