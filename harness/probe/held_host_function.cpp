#include "harness/probe/held_host_function.h"

#include <unistd.h>

#include <cstdlib>

namespace gilsan::probe {

const char* to_string(HostFunctionLaunch launch) {
  switch (launch) {
    case HostFunctionLaunch::LaunchHostFunc: return "launch-host-func";
    case HostFunctionLaunch::StreamAddCallback: return "stream-add-callback";
    case HostFunctionLaunch::GraphHostNode: return "graph-host-node";
  }
  return "?";
}

std::optional<HostFunctionLaunch> host_function_launch_named(std::string_view name) {
  for (HostFunctionLaunch launch : {HostFunctionLaunch::LaunchHostFunc, HostFunctionLaunch::StreamAddCallback,
                                    HostFunctionLaunch::GraphHostNode})
    if (name == to_string(launch)) return launch;
  return std::nullopt;
}

HostFunctionLaunch held_host_function_launch() {
  const char* chosen = std::getenv(std::string(kHeldByVariable).c_str());  // NOLINT(concurrency-mt-unsafe): set before any thread
  if (chosen == nullptr) return HostFunctionLaunch::LaunchHostFunc;
  return host_function_launch_named(chosen).value_or(HostFunctionLaunch::LaunchHostFunc);
}

CUresult HeldHostFunction::enqueue(const DriverTable& driver, CUstream stream, HostFunctionLaunch launch) {
  switch (launch) {
    case HostFunctionLaunch::LaunchHostFunc: return driver.cuLaunchHostFunc(stream, &HeldHostFunction::run, this);
    case HostFunctionLaunch::StreamAddCallback:
      return driver.cuStreamAddCallback(stream, &HeldHostFunction::run_as_callback, this, 0);
    case HostFunctionLaunch::GraphHostNode: {
      // A one-node graph launched on the stream. Its graph and executable are never destroyed: the
      // driver may run the node until the process ends (a case that fails half-way leaves it in flight).
      CUgraph graph = nullptr;
      if (CUresult rc = driver.cuGraphCreate(&graph, 0); rc != CUDA_SUCCESS) return rc;
      CUDA_HOST_NODE_PARAMS params{};
      params.fn = &HeldHostFunction::run;
      params.userData = this;
      CUgraphNode node = nullptr;
      if (CUresult rc = driver.cuGraphAddHostNode(&node, graph, nullptr, 0, &params); rc != CUDA_SUCCESS) return rc;
      CUgraphExec exec = nullptr;
      if (CUresult rc = driver.cuGraphInstantiateWithFlags(&exec, graph, 0); rc != CUDA_SUCCESS) return rc;
      return driver.cuGraphLaunch(exec, stream);
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

void CUDA_CB HeldHostFunction::run_as_callback(CUstream, CUresult, void* self_pointer) { run(self_pointer); }

void CUDA_CB HeldHostFunction::run(void* self_pointer) {
  auto* self = static_cast<HeldHostFunction*>(self_pointer);
  std::unique_lock<std::mutex> lock(self->mutex_);
  self->running_ = true;
  self->thread_id_ = ::gettid();
  self->changed_.notify_all();
  self->changed_.wait(lock, [&] { return self->released_; });
  self->returned_ = true;
  self->changed_.notify_all();
}

bool HeldHostFunction::wait_until_running(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return running_; });
}

void HeldHostFunction::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  released_ = true;
  changed_.notify_all();
}

bool HeldHostFunction::wait_until_returned(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return returned_; });
}

pid_t HeldHostFunction::thread_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return thread_id_;
}

HeldHostFunction::Phase HeldHostFunction::phase() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return returned_ ? Phase::Returned : running_ ? Phase::Running : Phase::Pending;
}

CUresult MarkerHostFunction::enqueue(const DriverTable& driver, CUstream stream) {
  return driver.cuLaunchHostFunc(stream, &MarkerHostFunction::run, this);
}

void CUDA_CB MarkerHostFunction::run(void* self_pointer) {
  auto* self = static_cast<MarkerHostFunction*>(self_pointer);
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->ran_ = true;
  self->thread_id_ = ::gettid();
  self->changed_.notify_all();
}

bool MarkerHostFunction::wait_until_ran(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return ran_; });
}

pid_t MarkerHostFunction::thread_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return thread_id_;
}

}  // namespace gilsan::probe
