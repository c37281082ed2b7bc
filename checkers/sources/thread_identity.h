// The id every event source gives a thread: the OS thread id (gettid), as the board and the
// watchdog use, so a report's thread can be found in a hang report or a debugger.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include "checkers/core/handles.h"
#include "checkers/core/sanitizer.h"

namespace gilsan::checkers {

inline ThreadId current_thread_id() {
  // Cached: a source asks on every driver call, and the id of a thread never changes.
  thread_local const ThreadId id = static_cast<ThreadId>(::syscall(SYS_gettid));
  return id;
}

// At a host function's begin: only the driver runs host functions, so the calling thread is named
// "driver callback thread" in the reports, once per thread, whichever source saw it first (the
// driver's observer, the gilsan module's trampoline).
inline void name_the_callback_thread(Sanitizer& sanitizer) {
  thread_local bool named = false;
  if (named) return;
  named = true;
  sanitizer.name_thread(current_thread_id(), "driver callback thread");
}

}  // namespace gilsan::checkers
