#include "harness/probe/held_host_function.h"

#include <unistd.h>

namespace gilsan::probe {

CUresult HeldHostFunction::enqueue(const DriverTable& driver, CUstream stream) {
  return driver.cuLaunchHostFunc(stream, &HeldHostFunction::run, this);
}

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
