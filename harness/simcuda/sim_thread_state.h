// What the driver keeps per application or driver thread: the current-context stack, whether the
// thread is running a driver callback, and its per-thread default streams.
//
// This is pthread-specific data rather than C++ thread_local: a thread_local of a dlopen'd library is
// dynamic TLS, which LeakSanitizer on current glibc misreads while it scans threads (its tracer
// crashes), and pthread keys also give a clean hook for the end of a thread.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace gilsan::sim {

struct CallbackScope;

struct ThreadState {
  std::vector<CUcontext> context_stack;
  const CallbackScope* callback = nullptr;
  std::uint64_t token = 0;                    // names this thread's per-thread default streams
  std::vector<CUcontext> per_thread_streams;  // contexts in which it has one
};

// The calling thread's state, created on first use. When the thread ends, its per-thread default
// streams are retired (their queued work still runs) and the state is freed.
ThreadState& this_thread_state();

// Defined in sim_stream.cpp: retires the per-thread default streams of an ending thread.
void retire_per_thread_streams(const ThreadState& state);

}  // namespace gilsan::sim
