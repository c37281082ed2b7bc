// The native-lock interposer's one outward call: a process's sanitizer, when it has one, registers an
// observer and is then told of the mutexes and rwlocks its threads take and let go, so that a native
// lock becomes a pseudo-lock of its lock-order model (docs/native-locks.md, "In the sanitizer").
//
// A C ABI, looked up by name (dlsym of kSetNativeLockObserverSymbol): the interposer is preloaded
// into programs gilsan did not build, the sanitizer lives in the gilsan executable or the injected
// library, and neither links the other.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

#define GILSAN_NATIVE_LOCK_OBSERVER_ABI 1

// The kinds an observer is told, as board::LockKind numbers them (the interposer checks that they agree).
#define GILSAN_NATIVE_MUTEX 1
#define GILSAN_NATIVE_WRITE_LOCK 2
#define GILSAN_NATIVE_READ_LOCK 3

typedef struct GilsanNativeLockObserver {
  unsigned abi;  // GILSAN_NATIVE_LOCK_OBSERVER_ABI
  // Before an acquire that may wait, on the acquiring thread (the model holds a lock from the moment
  // it may wait for it, so that a cycle is drawn before it hangs). Returns 1 when the observer keeps the
  // lock (its caller is code it watches): only then is it told of the lock's end; 0 when it does not
  // keep it this time; -1 when it never keeps a lock taken from this call site, which the interposer
  // then remembers for a while and does not ask about (the interpreter takes the GIL's mutex from one).
  int (*acquire_begin)(const void* lock, int kind, const void* call_site);
  // The acquire of a kept lock failed (EDEADLK, EINVAL, EAGAIN): the thread does not hold it.
  void (*acquire_failed)(const void* lock);
  // A kept lock is let go by the thread that took it.
  void (*released)(const void* lock);
} GilsanNativeLockObserver;

// Registers `observer` (null: none); it must live until the process ends. The interposer calls it on
// the locking thread, never twice at once on one thread: a lock the observer itself takes goes by.
typedef void (*GilsanSetNativeLockObserver)(const GilsanNativeLockObserver* observer);

#ifdef __cplusplus
}

namespace gilsan::nativelocks {
inline constexpr const char* kSetNativeLockObserverSymbol = "gilsan_native_locks_set_observer";
}  // namespace gilsan::nativelocks
#endif
