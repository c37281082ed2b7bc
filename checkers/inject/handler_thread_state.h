// What the calling thread is doing, as far as the injection logic is concerned. Thread-local, so a
// CUPTI callback can tell the application's calls from the handler's own and from calls made inside
// a host function without taking a lock.
#pragma once

namespace gilsan::checkers::inject {

struct HandlerThreadState {
  int quiet = 0;                // inside the handler's own driver calls: their callbacks are ignored
  int host_function_depth = 0;  // inside a wrapped host function
  int self_test = 0;            // running the start-up self-test
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
