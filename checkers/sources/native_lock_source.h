// Native mutexes and rwlocks as pseudo-locks of a process's Sanitizer: when the native-lock interposer
// (harness/nativelocks) is preloaded, the source registers its observer, and every mutex or rwlock
// taken to write by code the sanitizer watches (watched_callers.h) becomes a user lock of the model,
// held from the moment its acquire may wait until its unlock. So a cycle through a C library's lock,
// the GIL and the driver is reported on a run that does not hang (docs/native-locks.md, "In the
// sanitizer").
//
// Each acquire carries whether its thread holds the GIL (PyGILState_Check): a C library called
// through ctypes.CDLL runs without it, through ctypes.PyDLL with it, whatever the last GIL event said.
// An rwlock is one lock of the model whether it is taken to read or to write: a wait to read is a wait
// for its writer, which is what the cycles through it need; two readers, who never wait for each other,
// are ordered as two writers would be (docs/native-locks.md says so).
#pragma once

#include "checkers/core/sanitizer.h"

namespace gilsan::checkers {

// Feeds `sanitizer` from now on; false when no interposer is in the process (nothing to feed from).
// One sanitizer per process: a second attach replaces the first. The sanitizer must live as long as
// the process's threads take locks (every front end's does).
bool attach_native_lock_source(Sanitizer& sanitizer);

}  // namespace gilsan::checkers
