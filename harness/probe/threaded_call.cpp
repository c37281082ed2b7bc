#include "harness/probe/threaded_call.h"

#include <utility>

#include "harness/probe/call_recipe.h"

namespace gilsan::probe {

using Clock = std::chrono::steady_clock;

ThreadedCall::ThreadedCall(const ProbeFixture& fixture, std::function<CUresult()> call) : call_(std::move(call)) {
  thread_ = std::thread([this, &fixture] { body(fixture); });
}

ThreadedCall::~ThreadedCall() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_ = !go_;  // a call never started is not made: the thread just ends
    go_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ThreadedCall::body(const ProbeFixture& fixture) {
  CUresult current = fixture.driver.cuCtxSetCurrent(fixture.context);
  std::unique_lock<std::mutex> lock(mutex_);
  ready_ = current;
  changed_.notify_all();
  changed_.wait(lock, [&] { return go_; });
  if (current != CUDA_SUCCESS || abandoned_) return;
  std::function<CUresult()> call = std::move(call_);
  lock.unlock();
  auto started = Clock::now();
  CUresult result = call();
  auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
  lock.lock();
  result_ = result;
  duration_ = took;
  returned_ = true;
  changed_.notify_all();
}

CUresult ThreadedCall::ready() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return ready_.has_value(); });
  return *ready_;
}

void ThreadedCall::go() {
  std::lock_guard<std::mutex> lock(mutex_);
  go_ = true;
  changed_.notify_all();
}

bool ThreadedCall::wait_for(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return returned_; });
}

void ThreadedCall::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return returned_; });
}

CUresult ThreadedCall::result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

std::chrono::microseconds ThreadedCall::duration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return duration_;
}

ControlRun run_control(const ProbeFixture& fixture, const CallRecipe& recipe) {
  // The driver may keep using what the call was given (registered pages, a user object's pointer)
  // until the case's process ends, so the control's objects are never freed.
  auto* state = new RecipeState;
  std::optional<SetupFailure> failure;
  ControlRun run;
  ThreadedCall control(fixture, [&]() -> CUresult {
    try {
      if (recipe.prepare) recipe.prepare(fixture, *state);
      if (recipe.after_host_function_enqueued) recipe.after_host_function_enqueued(fixture, *state);
    } catch (const SetupFailure& error) {
      failure.emplace("control: " + error.step(), error.code(), fixture.name(error.code()));
      return error.code();
    }
    auto started = Clock::now();
    run.code = recipe.call(fixture, *state);
    run.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
    return run.code;
  });
  if (CUresult rc = control.ready(); rc != CUDA_SUCCESS)
    throw SetupFailure("control: cuCtxSetCurrent", rc, fixture.name(rc));
  control.go();
  control.wait();
  if (failure) throw *failure;
  return run;
}

}  // namespace gilsan::probe
