// What the calling thread is doing, as far as the injection logic is concerned. Thread-local, so a
// CUPTI callback can tell the application's calls from the handler's own and from calls made inside
// a host function without taking a lock.
#pragma once

#include <string_view>

namespace gilsan::checkers::inject {

// A CUDA runtime call made inside a host function, from its entry callback to its exit callback.
// The driver calls the runtime makes for it are reported as part of it, not on their own.
struct RuntimeCallFrame {
  std::string_view entry_point;         // "cudaMalloc" (CUPTI's name without its version suffix)
  std::string_view inner_driver_call;   // the first driver call it made that can wait, else its first
  bool inner_can_wait = false;          // inner_driver_call blocks or waits (decides which one is named)
  bool entered = false;                 // its driver_call_enter has gone to the Sanitizer
};

struct HandlerThreadState {
  int quiet = 0;                // inside the handler's own driver calls: their callbacks are ignored
  int host_function_depth = 0;  // inside a wrapped host function
  int self_test = 0;            // running the start-up self-test
  // Runtime calls in progress inside a host function, innermost last. The runtime does not nest
  // its public calls deeply: calls deeper than kRuntimeFrames are counted in runtime_depth only,
  // and not reported.
  static constexpr int kRuntimeFrames = 4;
  RuntimeCallFrame runtime_calls[kRuntimeFrames];
  int runtime_depth = 0;
};

inline HandlerThreadState& handler_thread_state() {
  thread_local HandlerThreadState state;
  return state;
}

// The handler's own driver calls (markers, capture queries, the self-test) are not the program's.
class QuietScope {
 public:
  QuietScope() { ++handler_thread_state().quiet; }
  ~QuietScope() { --handler_thread_state().quiet; }
  QuietScope(const QuietScope&) = delete;
  QuietScope& operator=(const QuietScope&) = delete;
};

}  // namespace gilsan::checkers::inject
