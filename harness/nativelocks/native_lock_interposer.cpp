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
// A sanitizer in the process may register an observer (native_lock_observer.h): it is then told of
// every acquire that may wait and, for the locks it keeps (those its policy watches), of their release
// or failure. The unlock side costs one thread-local load while the thread keeps nothing.
//
// Nothing here may take a lock, allocate or call the loader while a thread waits: the board writer
// attaches once, from the constructor, before the program's threads start.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "harness/board/board_writer.h"
#include "harness/nativelocks/native_lock_observer.h"
#include "harness/nativelocks/native_lock_wait.h"

namespace {

using gilsan::board::LockKind;
using gilsan::nativelocks::wait_for_lock;

// glibc's own words for who holds the lock (0: nobody, or readers only). Read while other threads
// change them, so atomically; a stale value is corrected at the next look.
int mutex_holder(pthread_mutex_t* mutex) { return __atomic_load_n(&mutex->__data.__owner, __ATOMIC_RELAXED); }
int rwlock_writer(pthread_rwlock_t* lock) { return __atomic_load_n(&lock->__data.__cur_writer, __ATOMIC_RELAXED); }

static_assert(GILSAN_NATIVE_MUTEX == static_cast<int>(LockKind::NativeMutex));
static_assert(GILSAN_NATIVE_WRITE_LOCK == static_cast<int>(LockKind::NativeWriteLock));
static_assert(GILSAN_NATIVE_READ_LOCK == static_cast<int>(LockKind::NativeReadLock));

using MutexCall = int (*)(pthread_mutex_t*);
using RwlockCall = int (*)(pthread_rwlock_t*);
using ConditionWait = int (*)(pthread_cond_t*, pthread_mutex_t*);
// The functions these stand in front of; null until the constructor ran (a library's constructor that
// locks before it then takes the recorded path, or looks its function up on the spot).
MutexCall next_mutex_lock = nullptr;
MutexCall next_mutex_unlock = nullptr;
RwlockCall next_rwlock_unlock = nullptr;
ConditionWait next_condition_wait = nullptr;

std::atomic<const GilsanNativeLockObserver*> g_observer{nullptr};

// The locks the observer kept on this thread, most recent last, for their release; a thread that
// holds more of them at once than this keeps no more. Trivial, so that the thread-local needs no
// guard; initial-exec, as a preloaded library's may be: no allocation on a thread's first lock.
constexpr int kKeptPerThread = 16;
// Call sites the observer never keeps a lock of, direct-mapped by address: a hit costs a compare where
// the observer would look the call site's module up. A library unloaded and another loaded at its
// address could be missed until its entry is evicted.
constexpr std::uintptr_t kUnwatchedSlots = 16;
struct KeptLocks {
  const void* locks[kKeptPerThread];
  int count;
  bool in_observer;  // the observer's own locks (the sanitizer's mutex) go by unobserved
  const void* unwatched[kUnwatchedSlots];
};
[[gnu::tls_model("initial-exec")]] thread_local KeptLocks t_kept{};

const void*& unwatched_slot(const void* call_site) {
  return t_kept.unwatched[(reinterpret_cast<std::uintptr_t>(call_site) >> 2) % kUnwatchedSlots];
}

// Tells the observer of an acquire that may wait; true when it keeps the lock.
bool observe_acquire(const void* lock, LockKind kind, const void* call_site) {
  const GilsanNativeLockObserver* observer = g_observer.load(std::memory_order_acquire);
  if (observer == nullptr || t_kept.in_observer || t_kept.count == kKeptPerThread) return false;
  const void*& unwatched = unwatched_slot(call_site);
  if (unwatched == call_site) return false;
  t_kept.in_observer = true;
  const int answer = observer->acquire_begin(lock, static_cast<int>(kind), call_site);
  t_kept.in_observer = false;
  if (answer < 0) unwatched = call_site;
  if (answer <= 0) return false;
  t_kept.locks[t_kept.count++] = lock;
  return true;
}

// Takes the most recent keep of `lock` off this thread's list; false when it was not kept.
bool forget_kept(const void* lock) {
  for (int at = t_kept.count - 1; at >= 0; --at) {
    if (t_kept.locks[at] != lock) continue;
    for (int later = at + 1; later < t_kept.count; ++later) t_kept.locks[later - 1] = t_kept.locks[later];
    --t_kept.count;
    return true;
  }
  return false;
}

// A kept lock's end: let go (released) or never taken (its acquire failed).
void observe_end(const void* lock, bool released) {
  if (!forget_kept(lock)) return;
  const GilsanNativeLockObserver* observer = g_observer.load(std::memory_order_acquire);
  if (observer == nullptr) return;
  t_kept.in_observer = true;
  if (released) {
    observer->released(lock);
  } else {
    observer->acquire_failed(lock);
  }
  t_kept.in_observer = false;
}

template <typename Function>
Function next_in_line(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

// glibc on x86-64 has two pthread_cond_wait: the current one (GLIBC_2.3.2, what programs link to) and an
// old one for the LinuxThreads layout; dlsym without a version could return either. Other architectures
// have only the current one, under another version.
ConditionWait find_condition_wait() {
  void* current = ::dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
  return reinterpret_cast<ConditionWait>(current != nullptr ? current : ::dlsym(RTLD_NEXT, "pthread_cond_wait"));
}

[[gnu::constructor]] void set_up() {
  next_mutex_lock = next_in_line<MutexCall>("pthread_mutex_lock");
  next_mutex_unlock = next_in_line<MutexCall>("pthread_mutex_unlock");
  next_rwlock_unlock = next_in_line<RwlockCall>("pthread_rwlock_unlock");
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

int acquire_mutex(pthread_mutex_t* mutex, const void* call_site) {
  if (next_mutex_lock != nullptr && looks_free(mutex)) return next_mutex_lock(mutex);
  const int tried = ::pthread_mutex_trylock(mutex);
  // EBUSY: another thread holds it, or this one does and the mutex checks for that (the timed acquire
  // then fails with EDEADLK as the plain one would).
  if (tried != EBUSY) return tried;
  return wait_for_lock(
      mutex, LockKind::NativeMutex, call_site,
      [mutex](const struct timespec* deadline) { return ::pthread_mutex_timedlock(mutex, deadline); },
      [mutex] { return mutex_holder(mutex); });
}

// An acquire told to the observer first; a kept lock whose acquire fails is taken back.
template <typename Acquire>
int observed(const void* lock, LockKind kind, const void* call_site, Acquire acquire) {
  const bool kept = observe_acquire(lock, kind, call_site);
  const int result = acquire();
  if (kept && result != 0) observe_end(lock, false);
  return result;
}

bool has_observer() { return g_observer.load(std::memory_order_relaxed) != nullptr; }

// An rwlock's acquire, told to the observer first when there is one.
template <int (*TryNow)(pthread_rwlock_t*), int (*TryUntil)(pthread_rwlock_t*, const struct timespec*)>
int take_rwlock(pthread_rwlock_t* lock, LockKind kind, const void* call_site) {
  auto acquire = [&] { return acquire_rwlock<TryNow, TryUntil>(lock, kind, call_site); };
  if (has_observer()) [[unlikely]] return observed(lock, kind, call_site, acquire);
  return acquire();
}

}  // namespace

extern "C" {

[[gnu::visibility("default")]] int pthread_mutex_lock(pthread_mutex_t* mutex) {
  const void* call_site = __builtin_return_address(0);
  if (has_observer()) [[unlikely]] {
    return observed(mutex, LockKind::NativeMutex, call_site, [&] { return acquire_mutex(mutex, call_site); });
  }
  return acquire_mutex(mutex, call_site);
}

// The observer hears of a release after it: it may take the same lock itself (a callback that records
// under a mutex of its own); another thread's acquire told in between holds nothing the model cannot
// take back.
[[gnu::visibility("default")]] int pthread_mutex_unlock(pthread_mutex_t* mutex) {
  const MutexCall unlock = next_mutex_unlock != nullptr ? next_mutex_unlock : next_in_line<MutexCall>("pthread_mutex_unlock");
  const int result = unlock(mutex);
  if (t_kept.count != 0) [[unlikely]] observe_end(mutex, true);
  return result;
}

[[gnu::visibility("default")]] int pthread_rwlock_wrlock(pthread_rwlock_t* lock) {
  return take_rwlock<::pthread_rwlock_trywrlock, ::pthread_rwlock_timedwrlock>(lock, LockKind::NativeWriteLock,
                                                                               __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_rwlock_rdlock(pthread_rwlock_t* lock) {
  return take_rwlock<::pthread_rwlock_tryrdlock, ::pthread_rwlock_timedrdlock>(lock, LockKind::NativeReadLock,
                                                                               __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_rwlock_unlock(pthread_rwlock_t* lock) {
  const RwlockCall unlock = next_rwlock_unlock != nullptr ? next_rwlock_unlock : next_in_line<RwlockCall>("pthread_rwlock_unlock");
  const int result = unlock(lock);
  if (t_kept.count != 0) [[unlikely]] observe_end(lock, true);
  return result;
}

[[gnu::visibility("default")]] void gilsan_native_locks_set_observer(const GilsanNativeLockObserver* observer) {
  if (observer != nullptr && observer->abi != GILSAN_NATIVE_LOCK_OBSERVER_ABI) return;
  g_observer.store(observer, std::memory_order_release);
}

[[gnu::visibility("default")]] int pthread_cond_wait(pthread_cond_t* condition, pthread_mutex_t* mutex) {
  // Before the constructor (another library's constructor waiting): there is no board to write yet.
  if (next_condition_wait == nullptr) return find_condition_wait()(condition, mutex);
  const gilsan::nativelocks::RecordedWait recorded(condition, LockKind::NativeCondition, 0, __builtin_return_address(0));
  return next_condition_wait(condition, mutex);
}

}  // extern "C"
