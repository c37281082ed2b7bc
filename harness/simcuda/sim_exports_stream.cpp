// Streams and host functions.
#include <algorithm>
#include <optional>

#include "harness/driverhooks/driver_hooks.h"
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_capture.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
namespace {

CUresult create(CUstream* phStream, unsigned flags, int priority) {
  if (phStream == nullptr || (flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  Lock lock(SimDriver::instance().mutex);
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return CUDA_ERROR_INVALID_CONTEXT;
  if (context->sticky_error != CUDA_SUCCESS) return context->sticky_error;  // a failed context makes nothing new
  priority = std::clamp(priority, kGreatestStreamPriority, kLeastStreamPriority);
  *phStream = create_stream(context, StreamKind::Created, flags, priority)->handle();
  return CUDA_SUCCESS;
}

// Waiting on a capturing stream is not part of any graph: it ends the capture with an error.
CUresult refuse_while_capturing(SimStream& stream) {
  invalidate_capture(stream);
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

// Host functions and stream callbacks both go through here. The profile's
// topology.enqueue_blocks_at_depth makes the enqueue itself wait while that many host functions are
// pending on the callback thread that will run this one. The board has it as pending from before it
// is queued (the callback thread may start it as soon as it is); `enqueued` is what the observer is
// told once the lock is gone. A captured call becomes a graph node instead, and leaves it null.
CUresult enqueue_host_call(CUstream handle, DefaultStream null_stream, HostCall call,
                           std::optional<GilsanSimHostFunction>& enqueued) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimStream> stream;
  if (CUresult rc = resolve_stream(handle, null_stream, stream); rc != CUDA_SUCCESS) return rc;
  if (stream->capture) return submit(lock, *stream, call);
  enqueued = GilsanSimHostFunction{call.run_key,  stream->context->handle(), stream->handle(),
                                   call.fn,       call.user_data,            call.stream_callback};
  std::shared_ptr<CallbackThread> thread = callback_thread_for(*stream);
  if (std::optional<int> depth = driver.profile().topology.enqueue_blocks_at_depth) {
    driver.progress.wait(lock, [&] { return thread->pending_launches < *depth; });
    // The wait let the lock go: a capture may have begun on the stream meanwhile.
    if (stream->capture) {
      enqueued.reset();
      return submit(lock, *stream, call);
    }
  }
  call.counts_toward_enqueue_depth = true;
  thread->pending_launches += 1;
  call.maybe_pending = driverhooks::host_function_pending(*enqueued, kBoardDriverName);
  CUresult rc = CUDA_SUCCESS;
  try {
    rc = submit(lock, *stream, call);
  } catch (...) {  // bad_alloc, which guarded() answers for: the note goes with the launch
    if (call.maybe_pending) driverhooks::host_function_not_launched(*enqueued, kBoardDriverName);
    enqueued.reset();
    throw;
  }
  if (rc != CUDA_SUCCESS) {
    thread->pending_launches -= 1;
    if (call.maybe_pending) driverhooks::host_function_not_launched(*enqueued, kBoardDriverName);
    enqueued.reset();
  }
  return rc;
}

// Outside the lock, as every observer hook.
CUresult enqueue_and_tell(CUstream handle, DefaultStream null_stream, HostCall call) {
  call.run_key = SimDriver::instance().take_run_key();
  std::optional<GilsanSimHostFunction> enqueued;
  const CUresult rc = guarded([&] { return enqueue_host_call(handle, null_stream, call, enqueued); });
  if (enqueued) driverhooks::host_function_enqueued(*enqueued);
  return rc;
}

}  // namespace

namespace api {

CUresult stream_synchronize(CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamSynchronize"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    if (stream->capture) return refuse_while_capturing(*stream);
    wait_for(lock, completion_of(*stream));
    release_above_thresholds();
    return stream->context->sticky_error;
  }));
}

CUresult stream_query(CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamQuery"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    if (stream->capture) return refuse_while_capturing(*stream);
    if (stream->context->sticky_error != CUDA_SUCCESS) return stream->context->sticky_error;
    return satisfied(completion_of(*stream)) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  }));
}

CUresult stream_wait_event(CUstream hStream, CUevent hEvent, unsigned flags, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamWaitEvent"), on_stream_event(hStream, hEvent));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<SimEvent> event = driver.events.find(hEvent);
    if (!event) return CUDA_ERROR_INVALID_HANDLE;
    if (flags == CU_EVENT_WAIT_EXTERNAL) return driver.unsupported();  // external event nodes
    if (flags != CU_EVENT_WAIT_DEFAULT) return CUDA_ERROR_INVALID_VALUE;
    if (event->capture_id != 0) {
      // Within one capture the record already precedes this point of the chain; joining another
      // stream into a capture (fork/join across streams) is not modelled.
      if (stream->capture && stream->capture->id == event->capture_id) return CUDA_SUCCESS;
      return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (stream->capture) {
      invalidate_capture(*stream);
      return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
    if (!event->recorded) return CUDA_SUCCESS;
    return submit(lock, *stream, NoWork{}, {*event->recorded});
  }));
}

CUresult stream_get_ctx(CUstream hStream, CUcontext* pctx, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamGetCtx"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (pctx == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    *pctx = stream->context->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult stream_get_flags(CUstream hStream, unsigned* flags, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamGetFlags"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (flags == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    *flags = stream->flags;
    return CUDA_SUCCESS;
  }));
}

CUresult stream_get_priority(CUstream hStream, int* priority, DefaultStream null_stream) {
  ApiScope api(entry("cuStreamGetPriority"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (priority == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    // Already clamped at creation, as the driver reports it; the default streams have priority 0.
    *priority = stream->priority;
    return CUDA_SUCCESS;
  }));
}

CUresult stream_add_callback(CUstream hStream, CUstreamCallback callback, void* userData, unsigned flags,
                             DefaultStream null_stream) {
  ApiScope api(entry("cuStreamAddCallback"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (callback == nullptr || flags != 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  HostCall call;
  call.stream_callback = callback;
  call.user_data = userData;
  call.stream_handle = hStream;
  return api.finish(enqueue_and_tell(hStream, null_stream, call));
}

CUresult launch_host_func(CUstream hStream, CUhostFn fn, void* userData, DefaultStream null_stream) {
  ApiScope api(entry("cuLaunchHostFunc"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (fn == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  HostCall call;
  call.fn = fn;
  call.user_data = userData;
  call.stream_handle = hStream;
  return api.finish(enqueue_and_tell(hStream, null_stream, call));
}

}  // namespace api
}  // namespace gilsan::sim

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  ApiScope api(entry("cuStreamCreate"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return create(phStream, Flags, 0); }));
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  ApiScope api(entry("cuStreamCreateWithPriority"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return create(phStream, flags, priority); }));
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream) {
  ApiScope api(entry("cuStreamDestroy"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    // Work still queued runs to completion; only the handle ends here, as on the real driver.
    std::shared_ptr<SimStream> stream = driver.streams.remove(hStream);
    if (!stream) return CUDA_ERROR_INVALID_HANDLE;
    retire_stream(*stream);
    // On a failed context the H200's driver answers the destroy with the context's error; the sim still
    // lets the stream go, so that a program that carries on leaks nothing here.
    return stream->context->sticky_error;
  }));
}

}  // extern "C"
