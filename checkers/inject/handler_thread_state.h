// What the calling thread is doing, as far as the injection logic is concerned. Thread-local, so a
// CUPTI callback can tell the application's calls from the handler's own and from calls made inside
// a host function without taking a lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "checkers/core/handles.h"

namespace gilsan::checkers::inject {

struct WrappedHostFunction;

// A host function's begin a thread sent to the Sanitizer while holding nothing else: a later one
// with the same signature adds nothing to the model unless something happens inside it
// (InjectHandler::wrapped_begin).
struct SentBegin {
  std::uint64_t handler = 0;  // the handler's instance; 0: none sent yet
  std::uint64_t epoch = 0;    // the handler's model epoch then (streams and contexts destroyed since)
  Handle context = 0;
  std::optional<Handle> stream;
  HostFunctionKind kind = HostFunctionKind::native;
};

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
  // The signatures of the last few begins sent (a callback thread serving several streams alternates
  // between them), replaced in turn.
  static constexpr int kSentBegins = 8;
  SentBegin sent_begins[kSentBegins];
  int next_sent_begin = 0;
  // The running host function whose begin (and so end) is held back: sent at the thread's next
  // callback inside it, else dropped with its end.
  const WrappedHostFunction* held_back_begin = nullptr;
};

// Trivially destructible, so a plain thread_local: nothing runs at the thread's exit, and callbacks from
// its last moments (other libraries' thread_local destructors) find it as it was (per_thread.h).
static_assert(std::is_trivially_destructible_v<HandlerThreadState>);

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
