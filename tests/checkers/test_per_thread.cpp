// PerThread<T> (checkers/core/per_thread.h): one T per thread, still there in a thread's last moments,
// handed back reset when the thread exits.
#include <gtest/gtest.h>

#include <thread>

#include "checkers/core/per_thread.h"

namespace gilsan::checkers::testing {
namespace {

struct Counter {
  int value = 0;
};

TEST(PerThread, EachThreadHasItsOwn) {
  PerThread<Counter>::get().value = 1;
  int seen_by_other = -1;
  std::thread([&] {
    seen_by_other = PerThread<Counter>::get().value;
    PerThread<Counter>::get().value = 2;
  }).join();
  EXPECT_EQ(0, seen_by_other);
  EXPECT_EQ(1, PerThread<Counter>::get().value);
}

TEST(PerThread, AnExitedThreadsValueGoesBackResetForTheNextThread) {
  struct Marked {
    int value = 0;
  };
  const Marked* first = nullptr;
  std::thread([&] {
    PerThread<Marked>::get().value = 5;
    first = &PerThread<Marked>::get();
  }).join();
  const Marked* second = nullptr;
  int value_seen = -1;
  std::thread([&] {
    second = &PerThread<Marked>::get();
    value_seen = second->value;
  }).join();
  EXPECT_EQ(first, second) << "the pool hands the exited thread's value out again";
  EXPECT_EQ(0, value_seen) << "reset";
}

// What a thread_local cannot do: be used from another thread_local's destructor, which runs after it
// may already have been destroyed.
struct UsesPerThreadWhenDestroyed {
  int* written = nullptr;
  ~UsesPerThreadWhenDestroyed() {
    if (written != nullptr) *written = ++PerThread<Counter>::get().value;
  }
};

TEST(PerThread, UsableFromAThreadLocalDestructor) {
  int written = 0;
  std::thread([&] {
    thread_local UsesPerThreadWhenDestroyed last;
    last.written = &written;
    PerThread<Counter>::get().value = 41;
  }).join();
  EXPECT_EQ(42, written);
}

}  // namespace
}  // namespace gilsan::checkers::testing
