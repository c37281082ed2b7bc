// SimEvent: a marker in a stream. Recording takes the stream's position as a dependency; the event is
// complete once the stream has run up to there, and it is stamped with the time it got there.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "harness/simcuda/sim_stream.h"

namespace gilsan::sim {

// Guarded by SimDriver::mutex.
struct SimEvent {
  std::shared_ptr<SimContext> context;
  unsigned flags = 0;
  std::optional<Dependency> recorded;  // empty until the first record
  std::uint64_t generation = 0;        // bumped by every record; a stale stamp is ignored
  std::optional<std::chrono::steady_clock::time_point> stamp;
  // Recorded into a stream capture: the capture's id and the nodes the record followed.
  std::uint64_t capture_id = 0;
  std::vector<struct SimGraphNode*> capture_frontier;

  CUevent handle() { return reinterpret_cast<CUevent>(this); }
};

// Requires the lock.
CUresult record_event(Lock& lock, const std::shared_ptr<SimEvent>& event, SimStream& stream);
// Requires the lock. CUDA_SUCCESS when complete (or never recorded), CUDA_ERROR_NOT_READY otherwise.
CUresult query_event(const SimEvent& event);
CUresult elapsed_milliseconds(const SimEvent& start, const SimEvent& end, float& milliseconds);

}  // namespace gilsan::sim
