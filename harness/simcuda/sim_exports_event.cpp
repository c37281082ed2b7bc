// Events: create, record, query, synchronize, elapsed time, destroy.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim::api {

CUresult event_record(CUevent hEvent, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuEventRecord"), on_stream_event(hStream, hEvent));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimEvent> event = driver.events.find(hEvent);
    if (!event) return CUDA_ERROR_INVALID_HANDLE;
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    if (stream->context != event->context) return CUDA_ERROR_INVALID_HANDLE;
    return record_event(lock, event, *stream);
  }));
}

}  // namespace gilsan::sim::api

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  ApiScope api(entry("cuEventCreate"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    constexpr unsigned kKnown = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (phEvent == nullptr || (Flags & ~kKnown) != 0) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_EVENT_INTERPROCESS) return SimDriver::instance().unsupported();
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    if (context->sticky_error != CUDA_SUCCESS) return context->sticky_error;
    auto event = std::make_shared<SimEvent>();
    event->context = context;
    event->flags = Flags;
    driver.events.add(event);
    *phEvent = event->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent) {
  ApiScope api(entry("cuEventDestroy"), on_event(hEvent));
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimEvent> event = driver.events.remove(hEvent);
  if (!event) return api.finish(CUDA_ERROR_INVALID_HANDLE);
  return api.finish(event->context->sticky_error);  // released, but a failed context still says so
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
  ApiScope api(entry("cuEventQuery"), on_event(hEvent));
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimEvent> event = driver.events.find(hEvent);
  if (!event) return api.finish(CUDA_ERROR_INVALID_HANDLE);
  if (event->context->sticky_error != CUDA_SUCCESS) return api.finish(event->context->sticky_error);
  return api.finish(query_event(*event));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  ApiScope api(entry("cuEventSynchronize"), on_event(hEvent));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimEvent> event = driver.events.find(hEvent);
    if (!event) return CUDA_ERROR_INVALID_HANDLE;
    if (event->context->sticky_error != CUDA_SUCCESS) return event->context->sticky_error;
    if (!event->recorded) return CUDA_SUCCESS;
    Dependency recorded = *event->recorded;
    wait_for(lock, {recorded});
    release_above_thresholds();
    return recorded.stream->context->sticky_error;
  }));
}

CUresult CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  ApiScope api(entry("cuEventElapsedTime"), on_event(hStart));
  if (api.refused()) return api.result();
  if (pMilliseconds == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimEvent> start = driver.events.find(hStart);
  std::shared_ptr<SimEvent> end = driver.events.find(hEnd);
  if (!start || !end) return api.finish(CUDA_ERROR_INVALID_HANDLE);
  return api.finish(elapsed_milliseconds(*start, *end, *pMilliseconds));
}

}  // extern "C"
