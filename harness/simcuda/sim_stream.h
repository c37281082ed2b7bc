// SimStream: an ordered queue of work with an executor thread of its own.
//
// Ordering is expressed as dependencies on (stream, sequence number) pairs: an operation runs once its
// stream has finished every earlier operation and each dependency's stream has completed up to the
// given number. Events, cuStreamWaitEvent and the legacy NULL stream's implicit barriers are all
// such dependencies, taken when the work is enqueued.
#pragma once

#include <cuda.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_work.h"

namespace gilsan::sim {

struct CaptureState;

// The stream priorities an H200 reports (cuCtxGetStreamPriorityRange): lower numbers are greater
// priorities. A stream keeps the priority it was created with, clamped to this range; the sim does
// not schedule by it.
inline constexpr int kGreatestStreamPriority = -5;
inline constexpr int kLeastStreamPriority = 0;

// What a NULL stream handle means for the entry point that received it.
enum class DefaultStream { Legacy, PerThread };

enum class StreamKind { Legacy, PerThread, Created };

struct Dependency {
  std::shared_ptr<SimStream> stream;
  std::uint64_t sequence = 0;
};

struct StreamOp {
  std::uint64_t sequence = 0;
  std::vector<Dependency> after;
  WorkItem work;
  // The call that enqueued it was work-waits in the profile and a host function of its context ran
  // as it was queued: it starts only while no host function of its context runs.
  bool waits_for_host_functions = false;
};

// All fields are guarded by SimDriver::mutex.
struct SimStream : std::enable_shared_from_this<SimStream> {
  std::shared_ptr<SimContext> context;
  StreamKind kind = StreamKind::Created;
  unsigned flags = 0;
  int priority = 0;

  std::deque<std::unique_ptr<StreamOp>> queue;
  std::uint64_t enqueued = 0;   // sequence number of the last operation enqueued
  std::uint64_t completed = 0;  // sequence number of the last operation finished
  bool executor_running = false;
  bool retired = false;  // destroyed by the application; the executor drains and ends
  std::condition_variable wake;

  std::unique_ptr<CaptureState> capture;
  std::shared_ptr<CallbackThread> own_callback_thread;  // topology.serialized_across_streams == false

  ~SimStream();
  bool blocking() const { return (flags & CU_STREAM_NON_BLOCKING) == 0; }
  bool idle() const { return completed == enqueued; }
  // The handle applications use for this stream: NULL (legacy), CU_STREAM_PER_THREAD, or its address.
  CUstream handle() const;
};

// Requires the lock. A stream of `context`, registered with its context (and, if created, with the driver).
std::shared_ptr<SimStream> create_stream(const std::shared_ptr<SimContext>& context, StreamKind kind, unsigned flags,
                                         int priority);

// Requires the lock. Maps a handle, including NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, to a stream.
CUresult resolve_stream(CUstream handle, DefaultStream default_stream, std::shared_ptr<SimStream>& out);

// Requires the lock. Adds work at the end of the stream, or to its capture graph while it captures.
CUresult submit(Lock& lock, SimStream& stream, WorkItem work, std::vector<Dependency> after = {});
// Requires the lock. Adds work at the end of the stream, ignoring capture.
void enqueue(SimStream& stream, WorkItem work, std::vector<Dependency> after = {});

// Requires the lock. What "everything submitted to `stream` so far" means, including the legacy stream's
// implicit wait for the blocking streams of its context.
std::vector<Dependency> completion_of(const SimStream& stream);
// Requires the lock. Every stream of the context up to now.
std::vector<Dependency> completion_of(const SimContext& context);
bool satisfied(const std::vector<Dependency>& dependencies);
// Waits (releasing the lock meanwhile) until the dependencies are met.
void wait_for(Lock& lock, const std::vector<Dependency>& dependencies);

// Requires the lock. The application no longer holds the stream: its executor drains it and ends.
void retire_stream(SimStream& stream);

}  // namespace gilsan::sim
