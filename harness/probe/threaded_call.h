// ThreadedCall: one driver call made on a thread of its own, started on a signal and timed, so that
// the probe can watch it from outside: did it return within a wait, or is it still inside the driver?
//
// The thread makes the fixture's context current as soon as it starts, before the probe's host
// function runs: cuCtxSetCurrent may itself be a call that the driver holds back.
#pragma once

#include <cuda.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "harness/probe/probe_fixture.h"

namespace gilsan::probe {

class ThreadedCall {
 public:
  ThreadedCall(const ProbeFixture& fixture, std::function<CUresult()> call);
  // Joins the thread: only once the call has returned (a case child that cannot wait is killed).
  ~ThreadedCall();
  ThreadedCall(const ThreadedCall&) = delete;
  ThreadedCall& operator=(const ThreadedCall&) = delete;

  // The result of making the context current on the thread, once it is known.
  CUresult ready();
  void go();
  bool wait_for(std::chrono::milliseconds limit);  // true when the call has returned
  void wait();
  CUresult result() const;
  std::chrono::microseconds duration() const;  // from go() to the call's return

 private:
  void body(const ProbeFixture& fixture);

  std::function<CUresult()> call_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<CUresult> ready_;
  bool go_ = false;
  bool abandoned_ = false;
  bool returned_ = false;
  CUresult result_ = CUDA_SUCCESS;
  std::chrono::microseconds duration_{0};
  std::thread thread_;
};

// The recipe once more on a thread of its own, with no host function anywhere: its result and how
// long it takes unobstructed. Every case runs it first: a recipe that fails here exercises only an
// error path, and its duration stretches the case's waits for a slow call.
struct ControlRun {
  CUresult code = CUDA_SUCCESS;
  std::chrono::microseconds duration{0};
};
struct CallRecipe;
// Throws SetupFailure (step prefixed "control: ") when the recipe's preparation fails.
ControlRun run_control(const ProbeFixture& fixture, const CallRecipe& recipe);

}  // namespace gilsan::probe
