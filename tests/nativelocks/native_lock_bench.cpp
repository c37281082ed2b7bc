// What the native-lock interposer adds to an uncontended lock and unlock, side by side in one process:
// libc's own pthread_mutex_lock (and rwlock acquires), reached through libc's handle, against the
// interposed ones every other library calls. Run with libgilsan_native_locks.so preloaded (`gilsan run
// -- ...` does it, and native_lock_ratios.py --preload); without it the bench refuses to run. A Google Benchmark program: its times are
// not asserted (native_lock_ratios.py prints the table; docs/performance.md has the measured one).
#include <dlfcn.h>
#include <pthread.h>

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstring>

namespace {

using MutexCall = int (*)(pthread_mutex_t*);
using RwlockCall = int (*)(pthread_rwlock_t*);

struct Acquires {
  MutexCall mutex_lock = nullptr;
  RwlockCall read_lock = nullptr;
  RwlockCall write_lock = nullptr;
};

Acquires libc_acquires() {
  void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (libc == nullptr) return {};
  return {reinterpret_cast<MutexCall>(::dlsym(libc, "pthread_mutex_lock")),
          reinterpret_cast<RwlockCall>(::dlsym(libc, "pthread_rwlock_rdlock")),
          reinterpret_cast<RwlockCall>(::dlsym(libc, "pthread_rwlock_wrlock"))};
}

// What the program's own calls reach: the interposer's when it is preloaded.
Acquires program_acquires() { return {&pthread_mutex_lock, &pthread_rwlock_rdlock, &pthread_rwlock_wrlock}; }

void mutex_pairs(benchmark::State& state, MutexCall lock) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  for (auto _ : state) {
    lock(&mutex);
    pthread_mutex_unlock(&mutex);
  }
  benchmark::DoNotOptimize(mutex);
}

void rwlock_pairs(benchmark::State& state, RwlockCall lock) {
  pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
  for (auto _ : state) {
    lock(&rwlock);
    pthread_rwlock_unlock(&rwlock);
  }
  benchmark::DoNotOptimize(rwlock);
}

}  // namespace

int main(int argc, char** argv) {
  const Acquires libc = libc_acquires();
  const Acquires program = program_acquires();
  if (libc.mutex_lock == nullptr || libc.read_lock == nullptr || libc.write_lock == nullptr) {
    std::fprintf(stderr, "native_lock_bench: libc's pthread functions not found\n");
    return 2;
  }
  // The program's own address of pthread_mutex_lock is a PLT-resolved one: ask the loader which object
  // defines the one every call reaches (not libc's: a sanitizer's runtime may intercept it too).
  Dl_info where{};
  if (::dladdr(::dlsym(RTLD_DEFAULT, "pthread_mutex_lock"), &where) == 0 || where.dli_fname == nullptr ||
      std::strstr(where.dli_fname, "libgilsan_native_locks") == nullptr) {
    std::fprintf(stderr, "native_lock_bench: libgilsan_native_locks.so is not preloaded (run it under gilsan run)\n");
    return 2;
  }
  benchmark::RegisterBenchmark("libc/mutex", mutex_pairs, libc.mutex_lock);
  benchmark::RegisterBenchmark("interposed/mutex", mutex_pairs, program.mutex_lock);
  benchmark::RegisterBenchmark("libc/rwlock-read", rwlock_pairs, libc.read_lock);
  benchmark::RegisterBenchmark("interposed/rwlock-read", rwlock_pairs, program.read_lock);
  benchmark::RegisterBenchmark("libc/rwlock-write", rwlock_pairs, libc.write_lock);
  benchmark::RegisterBenchmark("interposed/rwlock-write", rwlock_pairs, program.write_lock);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
