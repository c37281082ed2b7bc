// The scenario child's end of checkers/sources/python_lock_hooks.h: what traced Python locks report
// goes to the child's Sanitizer (user-lock pseudo-locks, docs/sanitizer.md "Python locks") and to the
// watchdog's board (lock records, so that a hang report names a lock's holder instead of guessing),
// through checkers/sources/python_lock_events.h. The `gilsan` executable exports these functions
// (ENABLE_EXPORTS); the child's builtin module `_gilsan_lock_hooks` (python_lock_tracing_installer.cpp)
// calls them directly.
#include "checkers/sources/python_lock_hooks.h"

#include "harness/board/board_writer.h"
#include "harness/child/scenario_sanitizer.h"

#ifdef GILSAN_WITH_SANITIZER
#include "checkers/sources/python_lock_events.h"
#endif

// Exported from the executable for dlsym/ctypes.CDLL(None), hence default visibility and `used`.
#define GILSAN_LOCK_HOOK extern "C" __attribute__((visibility("default"), used))

#ifdef GILSAN_WITH_SANITIZER

GILSAN_LOCK_HOOK void gilsan_lock_acquire_begin(unsigned long long lock, const char* name, int blocking) {
  gilsan::checkers::python_lock_acquire_begin(gilsan::scenario_sanitizer_instance(), lock, name, blocking != 0);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquired(unsigned long long lock, const char* name) {
  gilsan::checkers::python_lock_acquired(lock, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquire_failed(unsigned long long lock) {
  gilsan::checkers::python_lock_acquire_failed(gilsan::scenario_sanitizer_instance(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_released(unsigned long long lock) {
  gilsan::checkers::python_lock_released(gilsan::scenario_sanitizer_instance(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_destroyed(unsigned long long lock) {
  gilsan::checkers::python_lock_destroyed(gilsan::scenario_sanitizer_instance(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_begin(unsigned long long object, const char* name) {
  gilsan::checkers::python_notification_wait_begin(object, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_end() { gilsan::checkers::python_notification_wait_end(); }

#else  // a build without the checkers: the board alone (names kept whole there)

GILSAN_LOCK_HOOK void gilsan_lock_acquire_begin(unsigned long long lock, const char* name, int blocking) {
  if (blocking != 0) gilsan::board::begin_lock_wait(lock, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquired(unsigned long long lock, const char* name) {
  gilsan::board::end_lock_wait_for(lock);
  gilsan::board::note_lock_acquired(lock, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquire_failed(unsigned long long lock) { gilsan::board::end_lock_wait_for(lock); }
GILSAN_LOCK_HOOK void gilsan_lock_released(unsigned long long lock) { gilsan::board::note_lock_released(lock); }
GILSAN_LOCK_HOOK void gilsan_lock_destroyed(unsigned long long) {}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_begin(unsigned long long object, const char* name) {
  gilsan::board::begin_notification_wait(object, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_end() { gilsan::board::end_lock_wait(); }

#endif
