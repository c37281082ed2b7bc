// What a traced Python lock reports (python_lock_hooks.h), for any front end: to its Sanitizer (may
// be null: the sanitizer is off) and to the watchdog's board. The front end exports the seven C
// functions of python_lock_hooks.h and calls these with its own Sanitizer: the scenario child
// (harness/child/scenario_python_locks.cpp) and the injected library
// (checkers/inject/python_lock_exports.cpp).
//
// Called with the GIL held, never from a signal handler; never throws. In a child of os.fork() the
// Sanitizer is left alone: its copy is never finished, and its mutex may have been copied held by a
// thread that does not exist there (the board turns itself off in forks the same way).
#pragma once

#include "checkers/core/sanitizer.h"

namespace gilsan::checkers {

void python_lock_acquire_begin(Sanitizer* sanitizer, unsigned long long lock, const char* name, bool blocking);
void python_lock_acquired(unsigned long long lock, const char* name);
void python_lock_acquire_failed(Sanitizer* sanitizer, unsigned long long lock);
void python_lock_released(Sanitizer* sanitizer, unsigned long long lock);
void python_lock_destroyed(Sanitizer* sanitizer, unsigned long long lock);
// A wait for a notification goes to the board only: the sanitizer has no pseudo-lock for it.
void python_notification_wait_begin(unsigned long long object, const char* name);
void python_notification_wait_end();

}  // namespace gilsan::checkers
