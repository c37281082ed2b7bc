// The interposed acquires. An uncontended acquire writes nothing: a mutex that looks free is taken with
// the next pthread_mutex_lock in line (libc's, or another interposer's) at its own cost, and an rwlock
// is first tried without waiting. Only a thread that would wait records the wait on the board, with the
// holder the lock itself names (glibc keeps a mutex's owner and an rwlock's writer as kernel thread
// ids), and then waits in the timed acquire so that it can look at the holder again now and then.
//
// A mutex taken by another thread between the look and the acquire is waited for unrecorded: a window
// of nanoseconds, against pthread_mutex_trylock's 2.6x cost on every uncontended lock (measured with
// gilsan_native_lock_bench, docs/performance.md).
//
// A thread in pthread_cond_wait waits for a notification, not for a holder: the wait is recorded for as
// long as it lasts (its cost is nothing beside a wait), with the condition variable's address and the
// caller. A timed wait (pthread_cond_timedwait, pthread_cond_clockwait) ends by itself, as a sleep does,
// and is not recorded. The watchdog draws a recorded condition wait only where it can matter: a thread
// inside Python code or a host function, never the driver's or the interpreter's own (docs/native-locks.md).
//
// What is left out, by construction: glibc's internal locks (libc and the dynamic loader take them
// without going through these symbols) and a library that binds its lock calls at link time
// (-Bsymbolic, static glibc). A lock of the driver or the interpreter is recorded like any other; the
// watchdog marks it by the library that asked (docs/native-locks.md).
//
// Nothing here may take a lock, allocate or call the loader while a thread waits: the board writer
// attaches once, from the constructor, before the program's threads start.
#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>

#include "harness/board/board_writer.h"
#include "harness/nativelocks/native_lock_wait.h"

namespace {

using gilsan::board::LockKind;
using gilsan::nativelocks::wait_for_lock;

// glibc's own words for who holds the lock (0: nobody, or readers only). Read while other threads
// change them, so atomically; a stale value is corrected at the next look.
int mutex_holder(pthread_mutex_t* mutex) { return __atomic_load_n(&mutex->__data.__owner, __ATOMIC_RELAXED); }
int rwlock_writer(pthread_rwlock_t* lock) { return __atomic_load_n(&lock->__data.__cur_writer, __ATOMIC_RELAXED); }

using MutexAcquire = int (*)(pthread_mutex_t*);
using ConditionWait = int (*)(pthread_cond_t*, pthread_mutex_t*);
// The pthread_mutex_lock this one stands in front of; null until the constructor ran (a library's
// constructor that locks before it then takes the recorded path).
MutexAcquire next_mutex_lock = nullptr;
ConditionWait next_condition_wait = nullptr;

// glibc on x86-64 has two pthread_cond_wait: the current one (GLIBC_2.3.2, what programs link to) and an
// old one for the LinuxThreads layout; dlsym without a version could return either. Other architectures
// have only the current one, under another version.
ConditionWait find_condition_wait() {
  void* current = ::dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
  return reinterpret_cast<ConditionWait>(current != nullptr ? current : ::dlsym(RTLD_NEXT, "pthread_cond_wait"));
}

[[gnu::constructor]] void set_up() {
  next_mutex_lock = reinterpret_cast<MutexAcquire>(::dlsym(RTLD_NEXT, "pthread_mutex_lock"));
  next_condition_wait = find_condition_wait();
  gilsan::board::attach();
}

// An rwlock, to read or to write: tried without waiting first, then waited for on the record.
template <int (*TryNow)(pthread_rwlock_t*), int (*TryUntil)(pthread_rwlock_t*, const struct timespec*)>
int acquire_rwlock(pthread_rwlock_t* lock, LockKind kind, const void* call_site) {
  const int tried = TryNow(lock);
  if (tried != EBUSY) return tried;
  return wait_for_lock(
      lock, kind, call_site, [lock](const struct timespec* deadline) { return TryUntil(lock, deadline); },
      [lock] { return rwlock_writer(lock); });
}

bool looks_free(pthread_mutex_t* mutex) { return __atomic_load_n(&mutex->__data.__lock, __ATOMIC_RELAXED) == 0; }

}  // namespace

extern "C" {

[[gnu::visibility("default")]] int pthread_mutex_lock(pthread_mutex_t* mutex) {
  if (next_mutex_lock != nullptr && looks_free(mutex)) return next_mutex_lock(mutex);
  const int tried = ::pthread_mutex_trylock(mutex);
  // EBUSY: another thread holds it, or this one does and the mutex checks for that (the timed acquire
  // then fails with EDEADLK as the plain one would).
  if (tried != EBUSY) return tried;
  return wait_for_lock(
      mutex, LockKind::NativeMutex, __builtin_return_address(0),
      [mutex](const struct timespec* deadline) { return ::pthread_mutex_timedlock(mutex, deadline); },
      [mutex] { return mutex_holder(mutex); });
}

[[gnu::visibility("default")]] int pthread_rwlock_wrlock(pthread_rwlock_t* lock) {
  return acquire_rwlock<::pthread_rwlock_trywrlock, ::pthread_rwlock_timedwrlock>(lock, LockKind::NativeWriteLock,
                                                                                  __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_rwlock_rdlock(pthread_rwlock_t* lock) {
  return acquire_rwlock<::pthread_rwlock_tryrdlock, ::pthread_rwlock_timedrdlock>(lock, LockKind::NativeReadLock,
                                                                                  __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_cond_wait(pthread_cond_t* condition, pthread_mutex_t* mutex) {
  // Before the constructor (another library's constructor waiting): there is no board to write yet.
  if (next_condition_wait == nullptr) return find_condition_wait()(condition, mutex);
  const gilsan::nativelocks::RecordedWait recorded(condition, LockKind::NativeCondition, 0, __builtin_return_address(0));
  return next_condition_wait(condition, mutex);
}

}  // extern "C"
