// libgilsan_inject.so's end of checkers/sources/python_lock_hooks.h: traced Python locks in a program
// `gilsan run -- COMMAND` started (installed by python_process_setup.cpp, found through
// ctypes.PyDLL of this library) report to the injected Sanitizer and to the board, as in a scenario
// child (checkers/sources/python_lock_events.h).
#include "checkers/inject/python_lock_exports.h"

#include <atomic>

#include "checkers/sources/python_lock_events.h"
#include "checkers/sources/python_lock_hooks.h"

namespace gilsan::checkers::inject {
namespace {

std::atomic<Sanitizer*> g_sanitizer{nullptr};

}  // namespace

Sanitizer* python_lock_sanitizer() { return g_sanitizer.load(std::memory_order_acquire); }

void set_python_lock_sanitizer(Sanitizer* sanitizer) { g_sanitizer.store(sanitizer, std::memory_order_release); }

}  // namespace gilsan::checkers::inject

using gilsan::checkers::inject::python_lock_sanitizer;

#define GILSAN_LOCK_HOOK extern "C" __attribute__((visibility("default")))

GILSAN_LOCK_HOOK void gilsan_lock_acquire_begin(unsigned long long lock, const char* name, int blocking) {
  gilsan::checkers::python_lock_acquire_begin(python_lock_sanitizer(), lock, name, blocking != 0);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquired(unsigned long long lock, const char* name) {
  gilsan::checkers::python_lock_acquired(lock, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_acquire_failed(unsigned long long lock) {
  gilsan::checkers::python_lock_acquire_failed(python_lock_sanitizer(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_released(unsigned long long lock) {
  gilsan::checkers::python_lock_released(python_lock_sanitizer(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_destroyed(unsigned long long lock) {
  gilsan::checkers::python_lock_destroyed(python_lock_sanitizer(), lock);
}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_begin(unsigned long long object, const char* name) {
  gilsan::checkers::python_notification_wait_begin(object, name);
}
GILSAN_LOCK_HOOK void gilsan_lock_notification_wait_end() { gilsan::checkers::python_notification_wait_end(); }
