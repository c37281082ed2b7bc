#include "harness/simcuda/sim_event.h"

#include "harness/simcuda/sim_capture.h"

namespace gilsan::sim {

CUresult record_event(Lock& lock, const std::shared_ptr<SimEvent>& event, SimStream& stream) {
  if (stream.capture) {
    // Inside a capture the record marks a point of the graph, for cuStreamWaitEvent within the capture.
    event->capture_id = stream.capture->id;
    event->capture_frontier = stream.capture->frontier;
    return CUDA_SUCCESS;
  }
  const std::uint64_t generation = event->generation + 1;
  if (CUresult rc = submit(lock, stream, EventStamp{event, generation}); rc != CUDA_SUCCESS) return rc;
  event->generation = generation;
  event->stamp.reset();
  event->capture_id = 0;
  event->capture_frontier.clear();
  event->recorded = Dependency{stream.shared_from_this(), stream.enqueued};
  return CUDA_SUCCESS;
}

CUresult query_event(const SimEvent& event) {
  if (!event.recorded) return CUDA_SUCCESS;
  return satisfied({*event.recorded}) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult elapsed_milliseconds(const SimEvent& start, const SimEvent& end, float& milliseconds) {
  if ((start.flags | end.flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!start.recorded || !end.recorded) return CUDA_ERROR_INVALID_HANDLE;
  if (!satisfied({*start.recorded, *end.recorded}) || !start.stamp || !end.stamp) return CUDA_ERROR_NOT_READY;
  milliseconds = std::chrono::duration<float, std::milli>(*end.stamp - *start.stamp).count();
  return CUDA_SUCCESS;
}

}  // namespace gilsan::sim
