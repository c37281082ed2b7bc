// How a report names a lock a thread waits for: a Python lock by the name its writer gave; a native
// lock (harness/nativelocks) by what it is, the variable that holds it, its module, and the function
// that asked for it, with a mark when that function is the driver's or the interpreter's own.
#pragma once

#include <string>

#include "harness/board/board_records.h"
#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

// e.g. "registry (0x7f..)", "native mutex registry_lock in libfoo.so (0x7f..)", "native mutex
// 0x5566.. (heap)", for a notification what is awaited ("Event at app.py:12"); `names` may be null
// (the snapshot did not name it).
std::string describe_lock(const board::LockRecord& lock, const ThreadSnapshot::NativeLockNames* names);
// "waits for", for an rwlock "waits to read" / "waits to write", for a notification "waits for a
// notification of".
const char* lock_wait_words(board::LockKind kind);
// Where a native lock was asked for: "asked for in registry_count (libfoo.so)", and ", a lock of the
// driver's own" when the driver or the interpreter asked; "" when unknown.
std::string describe_call_site(const ThreadSnapshot::NativeLockNames& names);

}  // namespace gilsan::watchdog
