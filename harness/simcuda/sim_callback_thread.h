// CallbackThread: the driver thread that runs host functions, one at a time, in the order streams hand
// them over.
//
// Which thread serves a stream is the profile's topology: one per context (the measured H200
// behaviour), per device, per process, or one per stream when host functions are not serialized
// across streams. A stream's executor hands a host function over only once everything before it on
// that stream has finished, and waits for it to return before the stream moves on.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>

#include "harness/simcuda/gilsan_sim.h"
#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_work.h"

namespace gilsan::sim {

struct HostTask {
  GilsanSimHostFunction info{};
  CUstreamCallback stream_callback = nullptr;  // set for cuStreamAddCallback; info.fn is null then
  CUstream callback_stream = nullptr;
  std::shared_ptr<SimContext> context;
  bool counts_toward_enqueue_depth = false;
  bool maybe_pending = true;  // HostCall::maybe_pending
  bool done = false;  // guarded by SimDriver::mutex
};

// Set on a driver thread while it runs application code (a host function or a user object's
// destructor): the calls made from there follow the profile's inside_host_function table.
struct CallbackScope {
  SimContext* context = nullptr;  // null for a destructor
  const HostTask* task = nullptr;
};
const CallbackScope* current_callback();

// A scope marking the calling thread as running a driver callback until it ends.
class CallbackScopeGuard {
 public:
  explicit CallbackScopeGuard(CallbackScope scope);
  ~CallbackScopeGuard();
  CallbackScopeGuard(const CallbackScopeGuard&) = delete;
  CallbackScopeGuard& operator=(const CallbackScopeGuard&) = delete;

 private:
  CallbackScope scope_;
  const CallbackScope* previous_;
};

class CallbackThread : public std::enable_shared_from_this<CallbackThread> {
 public:
  // Requires the lock (held on return). Runs the task on this thread and waits until it has returned.
  void run(Lock& lock, HostTask& task);
  // Requires the lock. The owner is gone: the thread ends once its queue is empty.
  void retire();

  int pending_launches = 0;  // enqueued by cuLaunchHostFunc, not yet begun; guarded

 private:
  static void loop(const std::shared_ptr<CallbackThread>& self);
  std::deque<HostTask*> queue_;
  std::condition_variable wake_;
  bool thread_alive_ = false;
  bool retired_ = false;
};

// Requires the lock. The callback thread that serves `stream` under the profile's topology.
std::shared_ptr<CallbackThread> callback_thread_for(SimStream& stream);

}  // namespace gilsan::sim
