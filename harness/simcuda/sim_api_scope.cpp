#include "harness/simcuda/sim_api_scope.h"

#include <condition_variable>
#include <mutex>

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

GilsanSimApiCall describe(const char* name, CUcontext context, const ApiTarget& target) {
  return GilsanSimApiCall{name, context, target.stream, target.event};
}

}  // namespace

ApiScope::ApiScope(EntryId entry, ApiTarget target, const char* reported_name)
    : name_(reported_name != nullptr ? reported_name : entry.name().data()), target_(target) {
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

ApiScope::~ApiScope() { driverhooks::api_exit(describe(name_, context_, target_), result_); }

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
  if (policy.outside[entry.index] == OutsideBehaviour::Blocks) {
    Lock lock(driver.mutex);
    driver.progress.wait(lock, [&] {
      if (context_ == nullptr) return driver.host_functions_running == 0;
      auto context = driver.contexts.find(context_);
      return !context || context->host_functions_running == 0;
    });
  }
}

}  // namespace gilsan::sim
