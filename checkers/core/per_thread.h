// PerThread<T>: one T per thread, for what a thread reuses from one sanitizer event to the next.
//
// Not a thread_local T, for two reasons. Events can come from a thread's last moments: another
// thread_local's destructor (the module's kept Python thread state), or, on the main thread, an atexit
// handler (the injected library's finish), which glibc runs after the main thread's thread_local
// destructors; a thread_local T would be used after its destruction there, or made again and never
// freed. And libgilsan_inject.so is loaded by dlopen with static TLS, of which it gets little.
// So each thread holds only a pointer (trivially destructible) to a T that lives until the process
// ends; when a thread exits its T goes back to a pool, reset, for the next thread.
#pragma once

#include <pthread.h>

#include <mutex>
#include <vector>

namespace gilsan::checkers {

template <typename T>
class PerThread {
 public:
  // The calling thread's T, made (or taken from the pool, reset) on first use.
  static T& get() {
    if (t_value == nullptr) t_value = take();
    return *t_value;
  }

 private:
  struct Pool {
    std::mutex mutex;
    std::vector<T*> made;  // every T, so that leak checkers see them all reachable
    std::vector<T*> free;
    pthread_key_t key{};
  };
  // Never destroyed: threads may use their T while the process exits.
  static Pool& pool() {
    static Pool* const made = [] {
      auto* pool = new Pool;
      // The key's destructor runs when a thread exits (not for the main thread, whose T then simply
      // stays until the end) and hands its T back.
      pthread_key_create(&pool->key, [](void* value) {
        t_value = nullptr;
        give_back(static_cast<T*>(value));
      });
      return pool;
    }();
    return *made;
  }
  // Out of line and cold: inlined, its pushes and pops would be paid by every get(), made or not.
  [[gnu::noinline, gnu::cold]] static T* take() {
    Pool& shared = pool();
    T* value = nullptr;
    {
      std::lock_guard lock(shared.mutex);
      if (!shared.free.empty()) {
        value = shared.free.back();
        shared.free.pop_back();
      }
    }
    if (value == nullptr) {
      value = new T();
      std::lock_guard lock(shared.mutex);
      shared.made.push_back(value);
    }
    pthread_setspecific(shared.key, value);
    return value;
  }
  static void give_back(T* value) {
    *value = T();
    Pool& shared = pool();
    std::lock_guard lock(shared.mutex);
    shared.free.push_back(value);
  }

  static thread_local T* t_value;
};

template <typename T>
thread_local T* PerThread<T>::t_value = nullptr;

}  // namespace gilsan::checkers
