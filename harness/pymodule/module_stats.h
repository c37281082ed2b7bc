// Counters of what the module did with host functions and the Python objects they own, for tests
// (gilsan._stats()) and for the runner (the skip count after finalization).
//
// Driver threads update them without the GIL, so they are atomics. They live in a heap object that
// is never freed: a driver thread may still count after static destructors ran at process exit.
#pragma once

#include <atomic>

namespace gilsan::pymodule {

struct ModuleStats {
  // Python host functions enqueued with host_launch on a stream that was not capturing.
  std::atomic<unsigned long long> host_functions_enqueued{0};
  // Native CUhostFn functions (ctypes pointers, int addresses) enqueued on a stream.
  std::atomic<unsigned long long> native_host_functions_enqueued{0};
  // Python host nodes added to graphs (by capture or by gilsan.Graph).
  std::atomic<unsigned long long> graph_host_nodes_added{0};
  // Trampoline runs that called the Python callable (stream and graph paths).
  std::atomic<unsigned long long> host_functions_run{0};
  // Of those, runs whose callable raised (the exception went to sys.unraisablehook).
  std::atomic<unsigned long long> host_functions_raised{0};
  // Trampoline runs that skipped the callable because the interpreter was finalizing or gone.
  std::atomic<unsigned long long> host_functions_skipped{0};
  // Host functions the driver will never run because their context hit a sticky error.
  std::atomic<unsigned long long> host_functions_abandoned{0};
  // Owned packages of callable/args/kwargs (or a native keep-alive): made and released.
  std::atomic<unsigned long long> payloads_created{0};
  std::atomic<unsigned long long> payloads_released{0};
  // Releases handed from a driver thread to a thread that may take the GIL.
  std::atomic<unsigned long long> releases_deferred{0};
  // Releases dropped without a decref because Python was already gone (references leaked on purpose).
  std::atomic<unsigned long long> releases_leaked{0};
  // Python thread states kept by driver callback threads (callback_thread_state.h): one made per thread
  // on its first Python host function, and those whose thread the driver ended before finalization.
  std::atomic<unsigned long long> callback_thread_states_created{0};
  std::atomic<unsigned long long> callback_thread_states_retired{0};
  // Calls made to the module's exported native test functions (gilsan.native_test_functions()).
  std::atomic<unsigned long long> native_test_calls{0};
  std::atomic<unsigned long long> native_last_word{0};
};

ModuleStats& stats();

}  // namespace gilsan::pymodule
