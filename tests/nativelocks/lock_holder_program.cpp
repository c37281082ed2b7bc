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
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "contended-mutex") return contended_mutex();
  if (mode == "handover") return handover();
  if (mode == "read-behind-write") return rwlock_behind_write(true);
  if (mode == "write-behind-write") return rwlock_behind_write(false);
  if (mode == "condition-wait") return condition_wait();
  if (mode == "semantics") return semantics();
  std::fprintf(stderr, "usage: %s contended-mutex|handover|read-behind-write|write-behind-write|condition-wait|semantics\n",
               argv[0]);
  return 2;
}
