#include "checkers/inject/inject_handler.h"

#include <cstdint>
#include <utility>

#include "checkers/core/per_thread.h"
#include "checkers/inject/call_params.h"
#include "checkers/inject/handler_thread_state.h"
#include "checkers/inject/record_descriptions.h"
#include "checkers/sources/thread_identity.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {
namespace {

Handle as_handle(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// A _ptsz call's NULL stream is the calling thread's per-thread stream.
Handle stream_handle(const CallClass& call, CUstream stream) {
  if (call.per_thread && stream == nullptr) return kPerThreadStream;
  return as_handle(stream);
}

CUstream launch_stream(const CallClass& call, CUstream stream) {
  return call.per_thread && stream == nullptr ? CU_STREAM_PER_THREAD : stream;
}

std::atomic<std::uint64_t> g_handler_instances{0};

}  // namespace

InjectHandler::InjectHandler(Sanitizer& sanitizer, InjectedDriver driver, DriverBehaviour behaviour,
                             InjectOptions options)
    : sanitizer_(sanitizer),
      driver_(driver),
      options_(std::move(options)),
      classes_(std::move(behaviour)),
      instance_(++g_handler_instances) {}

InjectHandler::~InjectHandler() = default;

void InjectHandler::on_driver_api(DriverApiCallback& callback) {
  const CallClass& call = classes_.get(callback.callback_id, callback.symbol);
  HandlerThreadState& thread = handler_thread_state();
  if (thread.quiet > 0) {
    if (callback.entering && call.kind == CallKind::launch_host_func) rewrite_self_test_launch(callback);
    return;
  }
  if (thread.held_back_begin != nullptr) send_held_back_begin(thread);
  if (callback.entering) {
    on_enter(call, callback);
  } else {
    on_exit(call, callback);
  }
}

// Calls that cannot wait and are not made inside a host function change nothing in the model:
// they are skipped, so kernel launches and queries cost one table lookup.
bool InjectHandler::reported(const CallClass& call) const {
  if (handler_thread_state().host_function_depth > 0 || call.blocks_while_host_function_runs) return true;
  return call.kind == CallKind::stream_synchronize || call.kind == CallKind::event_synchronize ||
         call.kind == CallKind::context_synchronize;
}

DriverCallEnter InjectHandler::describe_call(const CallClass& call,
                                             const DriverApiCallback& callback) const {
  DriverCallEnter event;
  event.thread = current_thread_id();
  event.entry_point = call.entry_point;
  event.context = as_handle(callback.context);
  const CallHandles handles = call_handles(call, callback.params);
  if (handles.stream != nullptr) event.stream = stream_handle(call, *handles.stream);
  if (handles.event != nullptr) event.event = as_handle(*handles.event);
  if (handles.context != nullptr && *handles.context != nullptr) event.context = as_handle(*handles.context);
  return event;
}

void InjectHandler::on_enter(const CallClass& call, DriverApiCallback& callback) {
  if (call.kind == CallKind::launch_host_func) {
    wrap_stream_launch(call, callback);
  } else if (is_graph_node_call(call.kind)) {
    wrap_graph_node(call, callback);
  }
  if (!reported(call)) return;
  if (handler_thread_state().runtime_depth > 0) {
    note_runtime_driver_call(call, callback);
    return;
  }
  DriverCallEnter event = describe_call(call, callback);
  if (options_.holds_gil) event.holds_gil = options_.holds_gil();
  event.waits = waits_.waits_of(event.entry_point, event.stream, event.event);
  sanitizer_.driver_call_enter(event);
  if (options_.write_board) {
    board::enter_call(call.entry_point.c_str(), event.context, event.stream.value_or(0),
                      event.event.value_or(0));
  }
}

void InjectHandler::on_exit(const CallClass& call, DriverApiCallback& callback) {
  const int result = callback.result != nullptr ? *callback.result : 0;
  if (call.kind == CallKind::launch_host_func) finish_stream_launch(call, callback);
  if (reported(call) && handler_thread_state().runtime_depth == 0) {
    sanitizer_.driver_call_exit(
        DriverCallExit{current_thread_id(), call.entry_point, result, options_.error_names.name(result)});
    if (options_.write_board) board::exit_call();
  }
  if (call.kind == CallKind::capture_end && captures_in_progress_.load() > 0) {
    --captures_in_progress_;  // the capture is over even when ending it failed (invalidated)
  }
  if (result != CUDA_SUCCESS) return;
  switch (call.kind) {
    case CallKind::event_record:
    case CallKind::event_destroy:
    case CallKind::stream_destroy:
    case CallKind::context_destroy:
    case CallKind::capture_begin:
    case CallKind::context_made:
      note_success(call, callback);
      break;
    default:
      break;  // most calls: nothing to learn from their success, and no arguments to read
  }
}

void InjectHandler::note_success(const CallClass& call, DriverApiCallback& callback) {
  const DriverCallEnter target = describe_call(call, callback);
  switch (call.kind) {
    case CallKind::event_record:
      waits_.event_recorded(*target.event, *target.stream);
      if (options_.write_board) board::note_event_recorded(*target.event, *target.stream, target.context);
      break;
    case CallKind::event_destroy:
      waits_.event_destroyed(*target.event);
      break;
    case CallKind::stream_destroy:
      ++model_epoch_;
      sanitizer_.stream_destroyed(target.context, *target.stream);
      break;
    case CallKind::context_destroy:
      ++model_epoch_;
      sanitizer_.context_destroyed(target.context);
      break;
    case CallKind::capture_begin:
      ++captures_in_progress_;
      break;
    case CallKind::context_made: {
      CUcontext* made = *call_handles(call, callback.params).made_context;
      if (mode() == WrapMode::undecided && made != nullptr) ensure_self_test(*made);
      break;
    }
    default:
      break;
  }
}

WrappedHostFunction* InjectHandler::make_record(CUhostFn function, void* user_data, Handle context,
                                                std::optional<Handle> stream, bool one_shot) {
  std::unique_ptr<WrappedHostFunction> lasting;
  WrappedHostFunction* record = nullptr;
  if (one_shot) {
    record = record_pool_.take();  // finished by release_record, by its run (and maybe the exit callback)
  } else {
    lasting = std::make_unique<WrappedHostFunction>();
    record = lasting.get();
  }
  record->handler = this;
  record->user_function = function;
  record->user_data = user_data;
  record->one_shot = one_shot;
  record->code = &code_of(function);
  record->context = context;
  record->stream = stream;
  if (one_shot) return record;
  std::lock_guard lock(records_mutex_);
  lasting_records_.push_back(std::move(lasting));
  return record;
}

const HostFunctionCode& InjectHandler::code_of(CUhostFn function) {
  return identities_.of(reinterpret_cast<const void*>(function));
}

bool InjectHandler::stream_is_capturing(CUstream stream) const {
  if (captures_in_progress_.load(std::memory_order_relaxed) == 0) return false;
  QuietScope quiet;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // A stream whose capture status cannot be read may be part of a capture: treat it as one, which
  // only costs a record kept for good.
  if (driver_.stream_is_capturing(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// The launch's correlation slot holds the record, with this bit set when the API-exit callback
// holds a reference to it: only then may the exit callback read it after a successful launch, since
// the run may already have finished it. (Records are aligned to 64 bytes: the bit is free.)
constexpr std::uintptr_t kExitHoldsRecord = 1;

void InjectHandler::wrap_stream_launch(const CallClass& call, DriverApiCallback& callback) {
  if (callback.correlation == nullptr) return;  // no slot to pair the exit with: left unwrapped
  *callback.correlation = 0;  // the exit callback's "nothing wrapped"
  const LaunchHostFuncArgs args = launch_host_func_args(callback.params);
  if (*args.function == nullptr) return;  // the driver refuses it; nothing will run
  if (mode() == WrapMode::undecided) ensure_self_test(static_cast<CUcontext>(callback.context));
  const CUstream stream = launch_stream(call, *args.stream);
  // Launched into a capture, it becomes a graph node: it runs once per graph launch, on whatever
  // stream the graph is launched on, so its stream is unknown here.
  const bool one_shot = !stream_is_capturing(stream);
  const std::optional<Handle> runs_on =
      one_shot ? std::optional<Handle>(stream_handle(call, *args.stream)) : std::nullopt;
  WrappedHostFunction* record =
      make_record(*args.function, *args.user_data, as_handle(callback.context), runs_on, one_shot);
  const bool rewrite = mode() == WrapMode::rewrite;
  // The exit callback needs the record after a successful launch only to enqueue the end marker or
  // to report host_function_enqueued; otherwise the run is its only holder, and the exit callback
  // touches it only when the launch failed (then nothing runs it).
  const bool exit_holds = !rewrite || (one_shot && options_.report_enqueued);
  record->references.store(exit_holds ? 2 : 1, std::memory_order_relaxed);
  if (rewrite) {
    note_pending(*record);
    *args.function = run_wrapped_host_function;
    *args.user_data = record;
  } else if (driver_.launch_host_func == nullptr) {
    if (one_shot) discard_record(record);  // no markers: the host function goes unseen
    return;
  } else {
    QuietScope quiet;
    record->markers.store(one_shot ? kBeginQueued : kLasting, std::memory_order_relaxed);
    note_pending(*record);
    if (driver_.launch_host_func(stream, run_begin_marker, record) != CUDA_SUCCESS) {
      take_back_pending(*record);
      if (one_shot) discard_record(record);  // nobody else has it
      return;
    }
  }
  *callback.correlation = reinterpret_cast<std::uintptr_t>(record) | (exit_holds ? kExitHoldsRecord : 0);
}

void InjectHandler::finish_stream_launch(const CallClass& call, DriverApiCallback& callback) {
  if (callback.correlation == nullptr || *callback.correlation == 0) return;
  const std::uintptr_t correlation = static_cast<std::uintptr_t>(*callback.correlation);
  auto* record = reinterpret_cast<WrappedHostFunction*>(correlation & ~kExitHoldsRecord);
  const bool launched = callback.result != nullptr && *callback.result == CUDA_SUCCESS;
  if (!(correlation & kExitHoldsRecord)) {
    // The run holds the only reference; it will not run if the launch failed.
    if (!launched) release_record(record);
    return;
  }
  bool will_run = launched;
  const bool between_markers = record->markers.load(std::memory_order_relaxed) != kNoMarkers;
  if (between_markers) {
    // The begin marker is queued: the end marker must follow even if the user's launch failed, or
    // the callback thread would look busy for good.
    QuietScope quiet;
    will_run = driver_.launch_host_func(launch_stream(call, *launch_host_func_args(callback.params).stream),
                                        run_end_marker, record) == CUDA_SUCCESS;
    // Without an end marker, a begin marker that has not run yet ends the run and finishes the record
    // when it does (the run's reference). One that has run left its run begun on the callback thread,
    // which may still point at the record (a held-back begin, InjectHandler::wrapped_begin) until its
    // next host function: the run's reference is never dropped then, and the record is kept for good
    // (a failed launch of our own marker: rare, and one record).
    // A captured launch's begin marker is a graph node: it must end every run it begins (kLastingEndLost).
    if (!will_run) {
      std::uint8_t queued = kBeginQueued;
      std::uint8_t lasting = kLasting;
      if (!record->markers.compare_exchange_strong(queued, kEndLost, std::memory_order_acq_rel)) {
        record->markers.compare_exchange_strong(lasting, kLastingEndLost, std::memory_order_acq_rel);
      }
      will_run = true;
    }
  }
  // This callback still holds its reference: the record is valid here even if it already ran.
  if (launched && record->one_shot && options_.report_enqueued) {
    report_enqueued(*record);
  } else if (!launched && !between_markers) {
    take_back_pending(*record);  // (between markers, the queued begin marker's begin takes it off)
  }
  if (!will_run) release_record(record);  // the reference its run would have dropped
  release_record(record);
}

void InjectHandler::report_enqueued(const WrappedHostFunction& record) {
  // Reused, not made per launch (the Sanitizer copies what it keeps); a PerThread, not a thread_local:
  // launches come from a thread's last moments too (per_thread.h).
  HostFunctionEnqueued& event = PerThread<HostFunctionEnqueued>::get();
  event.thread = current_thread_id();
  describe_into(record, event.host_function);
  sanitizer_.host_function_enqueued(event);
}

// A one-shot launch is pending on the board from before anything that may run it is queued (the
// driver may start it before the launch returns, and its begin takes the note off), and is taken off
// again when nothing will run it. Only where report_enqueued is on, whose exit callback keeps the
// record to learn how the launch went.
void InjectHandler::note_pending(const WrappedHostFunction& record) const {
  if (options_.write_board && options_.report_enqueued && record.one_shot) {
    board::note_host_function_enqueued(board_info(record));
  }
}

void InjectHandler::take_back_pending(const WrappedHostFunction& record) const {
  if (options_.write_board && options_.report_enqueued && record.one_shot) {
    board::note_host_function_dropped(board_info(record).id, record.code->implementation.c_str());
  }
}

void InjectHandler::wrap_graph_node(const CallClass& call, DriverApiCallback& callback) {
  if (mode() == WrapMode::undecided) ensure_self_test(static_cast<CUcontext>(callback.context));
  if (mode() != WrapMode::rewrite) return;  // marker mode cannot put markers around a graph node
  // The driver reads the node parameters after this callback returns, on this thread: a
  // thread-local copy stays valid until then, and the application's own struct is left untouched.
  thread_local CUDA_HOST_NODE_PARAMS host_copy;
  thread_local CUgraphNodeParams generic_copy;
  const HostNodeSlot slot = host_node_slot(call.kind, callback.params);
  const Handle context = as_handle(callback.context);
  if (slot.host != nullptr && *slot.host != nullptr && (*slot.host)->fn != nullptr) {
    host_copy = **slot.host;
    host_copy.userData = make_record(host_copy.fn, host_copy.userData, context, std::nullopt, false);
    host_copy.fn = run_wrapped_host_function;
    *slot.host = &host_copy;
  } else if (slot.generic != nullptr && *slot.generic != nullptr &&
             (*slot.generic)->type == CU_GRAPH_NODE_TYPE_HOST && (*slot.generic)->host.fn != nullptr) {
    generic_copy = **slot.generic;
    generic_copy.host.userData =
        make_record(generic_copy.host.fn, generic_copy.host.userData, context, std::nullopt, false);
    generic_copy.host.fn = run_wrapped_host_function;
    *slot.generic = &generic_copy;
  }
}

}  // namespace gilsan::checkers::inject
