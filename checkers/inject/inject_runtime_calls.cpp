// The CUDA runtime's calls made inside a host function (CUPTI's runtime-API domain), as InjectHandler
// reports them: one cuda-call-in-host-function per runtime call, with the runtime's result, and the
// driver calls the runtime makes for it folded into it (docs/sanitizer.md, "Runtime calls inside a
// host function").
#include <cstdint>
#include <string>
#include <utility>

#include "checkers/inject/handler_thread_state.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/sources/thread_identity.h"

namespace gilsan::checkers::inject {

void InjectHandler::on_runtime_api(const DriverApiCallback& callback) {
  HandlerThreadState& thread = handler_thread_state();
  if (thread.quiet > 0) return;
  if (thread.held_back_begin != nullptr) send_held_back_begin(thread);
  // Outside a host function a runtime call is of no interest: the driver calls it makes are seen
  // on their own. Inside one, no frame is pushed for an error lookup, at entry or at exit.
  if (callback.entering ? thread.host_function_depth == 0 : thread.runtime_depth == 0) return;
  const CallClass& call = runtime_classes_.get(callback.callback_id, callback.symbol);
  if (call.error_lookup) return;
  if (callback.entering) {
    if (thread.runtime_depth < HandlerThreadState::kRuntimeFrames) {
      thread.runtime_calls[thread.runtime_depth] = RuntimeCallFrame{call.entry_point, {}, false, false};
    }
    ++thread.runtime_depth;
    return;
  }
  if (--thread.runtime_depth >= HandlerThreadState::kRuntimeFrames) return;
  RuntimeCallFrame& frame = thread.runtime_calls[thread.runtime_depth];
  if (!frame.entered) {
    // Refused before it reached the driver, or made only calls that cannot wait.
    DriverCallEnter event;
    event.thread = current_thread_id();
    event.context = reinterpret_cast<std::uintptr_t>(callback.context);
    enter_runtime_call(frame, std::move(event));
  }
  const int result = callback.result != nullptr ? *callback.result : 0;
  std::string result_name(options_.runtime_error_name ? options_.runtime_error_name(result) : "");
  if (!frame.inner_driver_call.empty()) {
    result_name += result_name.empty() ? "after " : ", after ";
    result_name += "its driver call ";
    result_name += frame.inner_driver_call;
  }
  sanitizer_.driver_call_exit(DriverCallExit{current_thread_id(), frame.entry_point, result, result_name});
}

// The runtime call is reported in place of the driver calls it makes, once. Its entry goes to the
// Sanitizer with the first of them that can wait (a synchronize, a call the profile says blocks),
// so that the lock-order graph gets that wait; later ones add no edge of their own.
void InjectHandler::note_runtime_driver_call(const CallClass& call, const DriverApiCallback& callback) {
  HandlerThreadState& thread = handler_thread_state();
  if (thread.runtime_depth > HandlerThreadState::kRuntimeFrames) return;
  RuntimeCallFrame& frame = thread.runtime_calls[thread.runtime_depth - 1];
  const bool can_wait = call.blocks_while_host_function_runs || call.kind == CallKind::stream_synchronize ||
                        call.kind == CallKind::event_synchronize || call.kind == CallKind::context_synchronize;
  if (frame.inner_driver_call.empty() || (can_wait && !frame.inner_can_wait && !frame.entered)) {
    frame.inner_driver_call = call.entry_point;
    frame.inner_can_wait = can_wait;
  }
  if (frame.entered || !can_wait) return;
  DriverCallEnter event = describe_call(call, callback);
  // Refused at once inside a host function (the profile says so): it waits for nothing.
  if (!call.refused_in_host_function) event.waits = waits_.waits_of(call.entry_point, event.stream, event.event);
  enter_runtime_call(frame, std::move(event));
}

void InjectHandler::enter_runtime_call(RuntimeCallFrame& frame, DriverCallEnter event) {
  event.entry_point = frame.entry_point;
  if (options_.holds_gil) event.holds_gil = options_.holds_gil();
  sanitizer_.driver_call_enter(event);
  frame.entered = true;
}

}  // namespace gilsan::checkers::inject
