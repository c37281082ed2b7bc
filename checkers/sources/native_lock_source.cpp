#include "checkers/sources/native_lock_source.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>

#include "checkers/sources/python_gil_probe.h"
#include "checkers/sources/thread_identity.h"
#include "checkers/sources/watched_callers.h"
#include "harness/nativelocks/native_lock_observer.h"

namespace gilsan::checkers {
namespace {

struct NativeLockFeed {
  Sanitizer* sanitizer = nullptr;
  PythonGilProbe gil;
  WatchedCallers callers;
};

// Never freed while the process runs: the interposer may be inside a callback of an older one.
std::atomic<NativeLockFeed*> g_feed{nullptr};

// As the Python lock source: a fork's copy of the sanitizer is left alone.
std::atomic<bool> g_forked{false};
void note_fork() { g_forked.store(true, std::memory_order_relaxed); }

NativeLockFeed* feed() {
  if (g_forked.load(std::memory_order_relaxed)) return nullptr;
  return g_feed.load(std::memory_order_acquire);
}

// "native mutex 0x7f.. (taken in libfoo.so)": the model's name for people; the address is the identity.
void name_lock(char (&name)[160], const void* lock, int kind, std::string_view module) {
  const char* what = kind == GILSAN_NATIVE_MUTEX ? "native mutex" : "native rwlock";  // read or write: one lock
  std::snprintf(name, sizeof name, "%s %p (taken in %.*s)", what, lock, static_cast<int>(module.size()),
                module.data());
}

int acquire_begin(const void* lock, int kind, const void* call_site) {
  NativeLockFeed* source = feed();
  // The sanitizer's own locks, and those of what it calls with its state locked (libdw while it
  // symbolizes a report): taking the state lock again would deadlock, and they are not the program's.
  if (source == nullptr || Sanitizer::busy_on_this_thread()) return 0;
  const WatchedCallers::Caller caller = source->callers.find(reinterpret_cast<std::uintptr_t>(call_site));
  if (!caller.watched) return caller.known ? -1 : 0;  // -1: never this call site's; the interposer remembers
  char name[160];
  name_lock(name, lock, kind, caller.module);
  try {
    source->sanitizer->lock_acquire({.thread = current_thread_id(),
                                     .lock = reinterpret_cast<std::uintptr_t>(lock),
                                     .name = name,
                                     .can_block = true,
                                     .releases_gil_while_waiting = false,
                                     .holds_gil = source->gil.holds_gil(false),
                                     .stack = {}});
  } catch (...) {
    // The core throws only std::bad_alloc; a lock call cannot take an exception. Kept all the same, so
    // that whatever the core recorded is released.
  }
  return 1;
}

void release(const void* lock) {
  NativeLockFeed* source = feed();
  if (source == nullptr) return;
  try {
    source->sanitizer->lock_release(current_thread_id(), reinterpret_cast<std::uintptr_t>(lock));
  } catch (...) {
  }
}

const GilsanNativeLockObserver kObserver = {GILSAN_NATIVE_LOCK_OBSERVER_ABI, acquire_begin, release, release};

GilsanSetNativeLockObserver interposer() {
  return reinterpret_cast<GilsanSetNativeLockObserver>(::dlsym(RTLD_DEFAULT, nativelocks::kSetNativeLockObserverSymbol));
}

}  // namespace

bool attach_native_lock_source(Sanitizer& sanitizer) {
  const GilsanSetNativeLockObserver set_observer = interposer();
  if (set_observer == nullptr) return false;
  static const bool fork_noted = (::pthread_atfork(nullptr, nullptr, note_fork), true);
  (void)fork_noted;
  auto* fresh = new NativeLockFeed;  // NOLINT(cppcoreguidelines-owning-memory): lives as long as the process
  fresh->sanitizer = &sanitizer;
  fresh->gil.holds_gil();  // looked up now, with the loader free, if an interpreter is already loaded
  g_feed.store(fresh, std::memory_order_release);
  set_observer(&kObserver);
  return true;
}

}  // namespace gilsan::checkers
