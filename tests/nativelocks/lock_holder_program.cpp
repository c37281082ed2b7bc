// The program the interposer's tests run with libgilsan_native_locks.so preloaded. Each mode makes one
// shape of contention and says on stdout which thread is which ("holder TID", "waiter TID"...), then
// waits for a line on stdin before it goes on, so that the test can read the board in between.
//   contended-mutex   one thread holds a mutex, another waits for it
//   handover          one holds, two wait; the holder lets go, the one that gets the mutex ("got TID")
//                     holds it until the next line, and the other waits on
//   read-behind-write one thread writes an rwlock, another waits to read
//   write-behind-write one thread writes an rwlock, another waits to write
//   condition-wait    one thread waits on a condition variable ("waiter TID") until the next line
//                     sets its flag and signals it
//   semantics         what a plain pthread_mutex_lock does, unchanged under the interposer: an
//                     error-checking mutex's relock fails with EDEADLK, a recursive one nests, a robust
//                     one's dead owner is EOWNERDEAD; exit 0 when all hold
//   observed          registers an observer (native_lock_observer.h) that keeps every lock but one (whose
//                     call site it never keeps) and takes a mutex of its own inside each callback, runs
//                     `semantics` under it, then checks what the observer was told of a few locks; exit 0
//                     when all hold
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "harness/nativelocks/native_lock_observer.h"

namespace {

int tid() { return static_cast<int>(::syscall(SYS_gettid)); }

void say(const std::string& line) {
  std::cout << line << std::endl;  // flushed: the test reads it at once
}

void next_line() {
  std::string line;
  std::getline(std::cin, line);
}

pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

int contended_mutex() {
  pthread_mutex_lock(&mutex);
  say("holder " + std::to_string(tid()));
  std::thread waiter([] {
    say("waiter " + std::to_string(tid()));
    pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
  });
  next_line();
  pthread_mutex_unlock(&mutex);
  waiter.join();
  say("done");
  return 0;
}

int condition_wait() {
  static pthread_cond_t condition = PTHREAD_COND_INITIALIZER;
  static bool ready = false;
  std::thread waiter([] {
    pthread_mutex_lock(&mutex);
    say("waiter " + std::to_string(tid()));
    while (!ready) pthread_cond_wait(&condition, &mutex);
    pthread_mutex_unlock(&mutex);
  });
  next_line();
  pthread_mutex_lock(&mutex);
  ready = true;
  pthread_cond_signal(&condition);
  pthread_mutex_unlock(&mutex);
  waiter.join();
  say("done");
  return 0;
}

int handover() {
  pthread_mutex_lock(&mutex);
  say("holder " + std::to_string(tid()));
  std::vector<std::thread> waiters;
  for (int i = 0; i < 2; ++i) {
    waiters.emplace_back([] {
      say("waiter " + std::to_string(tid()));
      pthread_mutex_lock(&mutex);
      say("got " + std::to_string(tid()));
      next_line();
      pthread_mutex_unlock(&mutex);
    });
  }
  next_line();
  pthread_mutex_unlock(&mutex);
  for (std::thread& waiter : waiters) waiter.join();
  say("done");
  return 0;
}

int rwlock_behind_write(bool to_read) {
  pthread_rwlock_wrlock(&rwlock);
  say("holder " + std::to_string(tid()));
  std::thread waiter([to_read] {
    say("waiter " + std::to_string(tid()));
    if (to_read) {
      pthread_rwlock_rdlock(&rwlock);
    } else {
      pthread_rwlock_wrlock(&rwlock);
    }
    pthread_rwlock_unlock(&rwlock);
  });
  next_line();
  pthread_rwlock_unlock(&rwlock);
  waiter.join();
  say("done");
  return 0;
}

int semantics() {
  int failures = 0;
  auto expect = [&failures](bool holds, const char* what) {
    if (!holds) {
      std::fprintf(stderr, "semantics: %s\n", what);
      ++failures;
    }
  };
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t checking;
  pthread_mutex_init(&checking, &attributes);
  expect(pthread_mutex_lock(&checking) == 0, "an error-checking mutex locks");
  expect(pthread_mutex_lock(&checking) == EDEADLK, "an error-checking mutex's relock is EDEADLK");
  pthread_mutex_unlock(&checking);
  pthread_mutex_destroy(&checking);

  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_t recursive;
  pthread_mutex_init(&recursive, &attributes);
  expect(pthread_mutex_lock(&recursive) == 0 && pthread_mutex_lock(&recursive) == 0, "a recursive mutex nests");
  expect(pthread_mutex_unlock(&recursive) == 0 && pthread_mutex_unlock(&recursive) == 0, "and unwinds");
  pthread_mutex_destroy(&recursive);

  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_NORMAL);
  pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_t robust;
  pthread_mutex_init(&robust, &attributes);
  std::thread([&robust] { pthread_mutex_lock(&robust); }).join();  // dies holding it
  expect(pthread_mutex_lock(&robust) == EOWNERDEAD, "a robust mutex whose owner died is EOWNERDEAD");
  pthread_mutex_consistent(&robust);
  pthread_mutex_unlock(&robust);
  pthread_mutex_destroy(&robust);
  pthread_mutexattr_destroy(&attributes);

  // Contended, then released: the waiter gets the mutex and the result is 0.
  pthread_mutex_lock(&mutex);
  int waited = -1;
  std::thread waiter([&waited] {
    waited = pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // past one look at the holder
  pthread_mutex_unlock(&mutex);
  waiter.join();
  expect(waited == 0, "a contended lock returns 0 once it is released");
  return failures == 0 ? 0 : 1;
}

// What the observer of `observed` was told, in order: 'a' acquire begin, 'f' failed, 'r' released, each
// with the lock. Written under the observer's own mutex, which the interposer must let by unobserved.
struct ObservedEvent {
  char what;
  const void* lock;
};
pthread_mutex_t observer_mutex = PTHREAD_MUTEX_INITIALIZER;
std::vector<ObservedEvent> observed_events;
void note(char what, const void* lock) {
  pthread_mutex_lock(&observer_mutex);
  observed_events.push_back({what, lock});
  pthread_mutex_unlock(&observer_mutex);
}
pthread_mutex_t unwatched_mutex = PTHREAD_MUTEX_INITIALIZER;  // its call site is "never kept"
int observe_acquire(const void* lock, int, const void*) {
  note('a', lock);
  return lock == &unwatched_mutex ? -1 : 1;
}
void observe_failed(const void* lock) { note('f', lock); }
void observe_released(const void* lock) { note('r', lock); }
const GilsanNativeLockObserver kObserver = {GILSAN_NATIVE_LOCK_OBSERVER_ABI, observe_acquire, observe_failed,
                                            observe_released};

int observed() {
  auto set_observer = reinterpret_cast<GilsanSetNativeLockObserver>(
      ::dlsym(RTLD_DEFAULT, gilsan::nativelocks::kSetNativeLockObserverSymbol));
  if (set_observer == nullptr) {
    std::fprintf(stderr, "observed: the interposer is not preloaded\n");
    return 1;
  }
  set_observer(&kObserver);
  if (semantics() != 0) return 1;
  observed_events.clear();  // semantics' threads have ended: nobody else writes it now

  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t checking;
  pthread_mutex_init(&checking, &attributes);
  pthread_mutex_lock(&mutex);          // a, then
  pthread_mutex_lock(&checking);       // a, then
  pthread_mutex_lock(&checking);       // a f: EDEADLK, so not held
  pthread_mutex_unlock(&checking);     // r
  pthread_mutex_unlock(&mutex);        // r
  pthread_rwlock_rdlock(&rwlock);      // a
  pthread_rwlock_unlock(&rwlock);      // r
  pthread_mutex_trylock(&mutex);       // not an acquire that may wait: nothing, and so
  pthread_mutex_unlock(&mutex);        // nothing at its release either
  for (int round = 0; round < 3; ++round) {
    pthread_mutex_lock(&unwatched_mutex);  // a once: the call site is never kept, so not asked again
    pthread_mutex_unlock(&unwatched_mutex);
  }
  set_observer(nullptr);
  pthread_mutex_lock(&mutex);          // no observer: nothing
  pthread_mutex_unlock(&mutex);
  pthread_mutex_destroy(&checking);
  pthread_mutexattr_destroy(&attributes);

  const std::vector<ObservedEvent> expected = {{'a', &mutex},    {'a', &checking}, {'a', &checking},
                                               {'f', &checking}, {'r', &checking}, {'r', &mutex},
                                               {'a', &rwlock},   {'r', &rwlock},   {'a', &unwatched_mutex}};
  bool same = observed_events.size() == expected.size();
  for (std::size_t at = 0; same && at < expected.size(); ++at) {
    same = observed_events[at].what == expected[at].what && observed_events[at].lock == expected[at].lock;
  }
  if (!same) {
    std::fprintf(stderr, "observed: told");
    for (const ObservedEvent& event : observed_events) std::fprintf(stderr, " %c%p", event.what, event.lock);
    std::fprintf(stderr, "\n");
  }
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "contended-mutex") return contended_mutex();
  if (mode == "handover") return handover();
  if (mode == "read-behind-write") return rwlock_behind_write(true);
  if (mode == "write-behind-write") return rwlock_behind_write(false);
  if (mode == "condition-wait") return condition_wait();
  if (mode == "semantics") return semantics();
  if (mode == "observed") return observed();
  std::fprintf(stderr,
               "usage: %s contended-mutex|handover|read-behind-write|write-behind-write|condition-wait|semantics|observed\n",
               argv[0]);
  return 2;
}
