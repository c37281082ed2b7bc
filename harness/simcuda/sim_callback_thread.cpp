#include "harness/simcuda/sim_callback_thread.h"

#include <thread>

#include "harness/driverhooks/driver_hooks.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_stream.h"
#include "harness/simcuda/sim_thread_pool.h"
#include "harness/simcuda/sim_thread_state.h"

namespace gilsan::sim {
namespace {

std::shared_ptr<CallbackThread>& ensure(std::shared_ptr<CallbackThread>& slot) {
  if (!slot) slot = std::make_shared<CallbackThread>();
  return slot;
}

}  // namespace

const CallbackScope* current_callback() { return this_thread_state().callback; }

CallbackScopeGuard::CallbackScopeGuard(CallbackScope scope) : scope_(scope), previous_(current_callback()) {
  this_thread_state().callback = &scope_;
}

CallbackScopeGuard::~CallbackScopeGuard() { this_thread_state().callback = previous_; }

void CallbackThread::run(Lock& lock, HostTask& task) {
  queue_.push_back(&task);
  if (!thread_alive_) {
    run_on_driver_thread([self = shared_from_this()] { loop(self); });
    thread_alive_ = true;
  }
  wake_.notify_one();
  SimDriver::instance().progress.wait(lock, [&] { return task.done; });
}

void CallbackThread::retire() {
  retired_ = true;
  wake_.notify_one();
}

void CallbackThread::loop(const std::shared_ptr<CallbackThread>& self) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  for (;;) {
    self->wake_.wait(lock, [&] { return !self->queue_.empty() || self->retired_; });
    if (self->queue_.empty()) break;
    HostTask* task = self->queue_.front();
    self->queue_.pop_front();
    if (task->counts_toward_enqueue_depth) self->pending_launches -= 1;
    task->context->host_functions_running += 1;
    driver.host_functions_running += 1;
    driver.progress.notify_all();
    lock.unlock();

    driverhooks::host_function_begin(task->info, kBoardDriverName, task->maybe_pending);
    {
      CallbackScopeGuard scope(CallbackScope{task->context.get(), task});
      if (task->stream_callback != nullptr) {
        task->stream_callback(task->callback_stream, CUDA_SUCCESS, task->info.user_data);
      } else {
        task->info.fn(task->info.user_data);
      }
    }
    driverhooks::host_function_end(task->info);

    lock.lock();
    task->context->host_functions_running -= 1;
    driver.host_functions_running -= 1;
    task->done = true;  // the executor that owns `task` may free it from here on
    driver.progress.notify_all();
  }
  self->thread_alive_ = false;
}

std::shared_ptr<CallbackThread> callback_thread_for(SimStream& stream) {
  auto& driver = SimDriver::instance();
  const DriverProfileTopology& topology = driver.profile().topology;
  if (!topology.serialized_across_streams) return ensure(stream.own_callback_thread);
  switch (topology.callback_thread) {
    case CallbackThreadScope::PerContext: return ensure(stream.context->callback_thread);
    case CallbackThreadScope::PerDevice: return ensure(stream.context->device->callback_thread);
    case CallbackThreadScope::PerProcess: return ensure(driver.process_callback_thread);
  }
  return ensure(stream.context->callback_thread);
}

}  // namespace gilsan::sim
