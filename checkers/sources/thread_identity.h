// The id every event source gives a thread: the OS thread id (gettid), as the board and the
// watchdog use, so a report's thread can be found in a hang report or a debugger.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

inline ThreadId current_thread_id() {
  // Cached: a source asks on every driver call, and the id of a thread never changes.
  thread_local const ThreadId id = static_cast<ThreadId>(::syscall(SYS_gettid));
  return id;
}

}  // namespace gilsan::checkers
