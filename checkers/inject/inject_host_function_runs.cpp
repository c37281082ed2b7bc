// InjectHandler: a wrapped host function's begin and end, on the thread that runs it, as the
// sanitizer and the board hear of them.
#include <cstdint>
#include <utility>

#include "checkers/core/per_thread.h"
#include "checkers/inject/handler_thread_state.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/inject/record_descriptions.h"
#include "checkers/sources/thread_identity.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {

// Repeated host functions. A host function's begin and end change the model only the first time a
// thread runs one of its signature (context, stream, kind) while holding nothing else (remembered
// for the thread's last few signatures, HandlerThreadState::sent_begins): they add the
// edges from its completions to the callback thread (and to the GIL for a Python one), which are
// never removed; after the end the thread's state is as before the begin. So a later host function
// of the same signature, in which the thread makes no call the handler sees, adds nothing: its
// begin is held back, and dropped with its end. Any callback the thread gets while it runs sends the
// begin first, so that the call is made holding what it should. Not done when the begin feeds
// something besides the graph: the board (the watchdog shows each running host function) or the
// pending lists of gil-held-blocking-call.
bool InjectHandler::adds_nothing(const WrappedHostFunction& record, const HandlerThreadState& thread) const {
  if (options_.write_board || options_.report_enqueued || thread.host_function_depth != 1) return false;
  const std::uint64_t epoch = model_epoch_.load(std::memory_order_acquire);
  for (const SentBegin& sent : thread.sent_begins) {
    if (sent.handler == instance_ && sent.epoch == epoch && sent.context == record.context &&
        sent.stream == record.stream && sent.kind == record.code->kind) {
      return true;
    }
  }
  return false;
}

void InjectHandler::send_begin(const WrappedHostFunction& record, HandlerThreadState& thread) {
  const std::uint64_t epoch = model_epoch_.load(std::memory_order_acquire);
  // Reused (see describe_into; the Sanitizer copies what it keeps); a PerThread, not a thread_local:
  // host functions run in a callback thread's last moments too (per_thread.h).
  HostFunctionBegin& event = PerThread<HostFunctionBegin>::get();
  event.thread = current_thread_id();
  describe_into(record, event.host_function);
  sanitizer_.host_function_begin(event);
  if (options_.write_board) board::begin_host_function(board_info(record));
  if (thread.host_function_depth == 1) {
    thread.sent_begins[thread.next_sent_begin] = SentBegin{instance_, epoch, record.context, record.stream,
                                                           record.code->kind};
    thread.next_sent_begin = (thread.next_sent_begin + 1) % HandlerThreadState::kSentBegins;
  }
}

void InjectHandler::send_held_back_begin(HandlerThreadState& thread) {
  const WrappedHostFunction* record = std::exchange(thread.held_back_begin, nullptr);
  send_begin(*record, thread);
}

int InjectHandler::host_functions_running_here() const { return handler_thread_state().host_function_depth; }

void InjectHandler::wrapped_begin(const WrappedHostFunction& record) {
  HandlerThreadState& thread = handler_thread_state();
  // A host function starting inside another (marker mode) is an event inside the outer one.
  if (thread.held_back_begin != nullptr) send_held_back_begin(thread);
  ++thread.host_function_depth;
  if (record.self_test) {
    self_test_wrapper_ran_.store(true);
    return;
  }
  if (adds_nothing(record, thread)) {
    thread.held_back_begin = &record;
    return;
  }
  send_begin(record, thread);
}

void InjectHandler::wrapped_end(const WrappedHostFunction& record) {
  HandlerThreadState& thread = handler_thread_state();
  --thread.host_function_depth;
  if (record.self_test) return;
  if (thread.held_back_begin == &record) {
    thread.held_back_begin = nullptr;  // nothing happened inside: neither begin nor end is news
    return;
  }
  sanitizer_.host_function_end(current_thread_id());
  if (options_.write_board) board::end_host_function();
}

}  // namespace gilsan::checkers::inject
