#include "harness/simcuda/sim_api_scope.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "harness/driverhooks/driver_hooks.h"
#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_stream.h"

namespace gilsan::sim {
namespace {

// Entry points that work before cuInit, as on the real driver.
bool works_before_init(EntryId entry) {
  return entry.index == gilsan::sim::entry("cuInit").index ||
         entry.index == gilsan::sim::entry("cuDriverGetVersion").index ||
         entry.index == gilsan::sim::entry("cuGetErrorName").index ||
         entry.index == gilsan::sim::entry("cuGetErrorString").index;
}

// The profile says this call never returns from a host function: park the thread for good.
[[noreturn]] void hang_forever() {
  std::mutex mutex;
  std::condition_variable never_notified;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) never_notified.wait(lock);
}

bool is_special_stream(CUstream stream) {
  return stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

// Requires the lock. The context a call acts on: its context argument, else its stream's or event's,
// else the calling thread's current one.
CUcontext target_context(const ApiTarget& target) {
  auto& driver = SimDriver::instance();
  if (target.context != nullptr) return target.context;
  if (target.has_stream && !is_special_stream(target.stream)) {
    auto stream = driver.streams.find(target.stream);
    return stream ? stream->context->handle() : nullptr;
  }
  if (target.event != nullptr) {
    auto event = driver.events.find(target.event);
    return event ? event->context->handle() : nullptr;
  }
  auto context = current_context();
  return context ? context->handle() : nullptr;
}

// The innermost ApiScope of this thread (a scope may open another: an export that calls one).
thread_local ApiScope* current_scope = nullptr;

GilsanSimApiCall describe(const char* name, CUcontext context, const ApiTarget& target) {
  return GilsanSimApiCall{name, context, target.stream, target.event};
}

}  // namespace

ApiScope::ApiScope(EntryId entry, ApiTarget target, const char* reported_name)
    : entry_(entry),
      name_(reported_name != nullptr ? reported_name : entry.name().data()),
      enclosing_(current_scope),
      target_(target) {
  current_scope = this;
  auto& driver = SimDriver::instance();
  if (driver.initialized()) {
    Lock lock(driver.mutex);
    context_ = target_context(target_);
  }
  driverhooks::api_enter(describe(name_, context_, target_));
  if (!driver.initialized()) {
    if (!works_before_init(entry)) result_ = CUDA_ERROR_NOT_INITIALIZED;
    return;
  }
  apply_policy(entry);
}

ApiScope::~ApiScope() {
  current_scope = enclosing_;
  driverhooks::api_exit(describe(name_, context_, target_), result_);
}

bool current_call_work_waits() { return current_scope != nullptr && current_scope->work_waits_now(); }

void ApiScope::apply_policy(EntryId entry) {
  auto& driver = SimDriver::instance();
  if (const CUresult failure = driver.injected_failures().next(entry); failure != CUDA_SUCCESS) {
    result_ = failure;
    return;
  }
  const Policy& policy = driver.policy();
  if (current_callback() != nullptr) {
    switch (policy.inside[entry.index]) {
      case InsideBehaviour::Allowed: return;
      case InsideBehaviour::NotPermitted: result_ = CUDA_ERROR_NOT_PERMITTED; return;
      case InsideBehaviour::Hangs: hang_forever();
    }
    return;
  }
  if (policy.may_be_first_use[entry.index]) {
    first_use_undecided_ = true;
    return;
  }
  Lock lock(driver.mutex);
  apply_outside(lock, policy.outside[entry.index]);
}

void ApiScope::decide_first_use(Lock& lock, const char* first_use_cell) {
  if (!std::exchange(first_use_undecided_, false)) return;
  const Policy& policy = SimDriver::instance().policy();
  apply_outside(lock, first_use_cell != nullptr ? policy.work.at(first_use_cell) : policy.outside[entry_.index]);
}

bool ApiScope::host_function_of_context_runs() const {
  auto& driver = SimDriver::instance();
  if (context_ == nullptr) return driver.host_functions_running > 0;
  auto context = driver.contexts.find(context_);
  return context && context->host_functions_running > 0;
}

// `work-waits` is what a call made while a host function of the context runs does to its work. Work
// enqueued before any began goes on as the GPU's would, even if a host function begins before it gets
// its turn: one that waits for it must not wait forever.
bool ApiScope::work_waits_now() const { return work_waits_cell_ && host_function_of_context_runs(); }

void ApiScope::apply_outside(Lock& lock, WorkBehaviour behaviour) {
  work_waits_cell_ = behaviour == WorkBehaviour::WorkWaits;
  if (behaviour != WorkBehaviour::CallBlocks) return;
  SimDriver::instance().progress.wait(lock, [&] { return !host_function_of_context_runs(); });
}

}  // namespace gilsan::sim
