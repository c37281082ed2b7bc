// ApiScope: the one place where the profile's behaviour around host functions is applied.
//
// Every exported entry point opens an ApiScope first. The scope reports the call to the observer,
// refuses calls before cuInit, and then applies the profile:
//  - on a driver callback thread (inside a host function): inside_host_function[entry] —
//    not-permitted returns CUDA_ERROR_NOT_PERMITTED, hangs blocks forever, allowed lets the call do
//    its work (which may then wait for real on a data dependency, as on the GPU);
//  - on any other thread: the entry point's enqueued-work cell of the process's loading mode, else
//    while_host_function_runs[entry] — call-blocks (blocks) waits until no host function of the call's
//    context is running; work-waits lets the call return but holds the work it enqueues until then;
//    proceeds (returns) goes on at once. An entry point that can be a kernel's first use in its
//    context (the profile has a first-use cell for it) is decided by the call itself, once it knows
//    (decide_first_use).
// No entry point has special handling elsewhere; the model only does the work the call asks for.
#pragma once

#include <cuda.h>

#include <mutex>
#include <new>

#include "harness/profile/enqueued_work.h"
#include "harness/simcuda/sim_entry_points.h"

namespace gilsan::sim {

// The objects a call acts on, as the application passed them; each may be null.
struct ApiTarget {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
  bool has_stream = false;  // the call takes a stream argument (NULL then means a default stream)
};

inline ApiTarget on_context(CUcontext context) { return ApiTarget{context, nullptr, nullptr, false}; }
inline ApiTarget on_stream(CUstream stream) { return ApiTarget{nullptr, stream, nullptr, true}; }
inline ApiTarget on_event(CUevent event) { return ApiTarget{nullptr, nullptr, event, false}; }
inline ApiTarget on_stream_event(CUstream stream, CUevent event) { return ApiTarget{nullptr, stream, event, true}; }
inline ApiTarget on_current_context() { return ApiTarget{}; }

class ApiScope {
 public:
  // `reported_name` replaces the entry point's name in observer reports (gilsanSimLaunchWork follows
  // cuLaunchKernel's policy under its own name).
  ApiScope(EntryId entry, ApiTarget target, const char* reported_name = nullptr);
  ~ApiScope();
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;

  // True when the scope decided the call's result itself (not initialized, not permitted).
  bool refused() const { return result_ != CUDA_SUCCESS; }
  CUresult result() const { return result_; }
  // Requires the lock. Whether work this call enqueues now must wait until no host function of its
  // context runs: the profile says work-waits for the call, and one runs at this moment (decided when
  // the work is queued, under the same lock, so that a host function beginning or ending between the
  // call's entry and its enqueue is seen).
  bool work_waits_now() const;
  // Requires the lock. For entry points with first-use cells: applies `first_use_cell`'s behaviour
  // (null: the call is not a first use, so the entry point's own), waiting with the lock released
  // when the call blocks. Does nothing on a callback thread or for other entry points.
  void decide_first_use(std::unique_lock<std::mutex>& lock, const char* first_use_cell);
  // Records the call's result for the observer and returns it.
  CUresult finish(CUresult result) {
    result_ = result;
    return result;
  }

 private:
  void apply_policy(EntryId entry);
  void apply_outside(std::unique_lock<std::mutex>& lock, WorkBehaviour behaviour);
  bool host_function_of_context_runs() const;  // requires the lock
  EntryId entry_;
  const char* name_;
  ApiScope* enclosing_ = nullptr;  // the scope this thread was in before this one
  bool first_use_undecided_ = false;
  bool work_waits_cell_ = false;  // the profile's cell for this call is work-waits
  ApiTarget target_;
  CUcontext context_ = nullptr;  // the context the call acts on, as reported and as waited for
  CUresult result_ = CUDA_SUCCESS;
};

// Whether work enqueued now, by the call this thread is in, must wait until no host function of its
// context runs (the profile's work-waits). Read by the stream when it queues the work, under the lock.
bool current_call_work_waits();

// Runs `body` and turns an exception (out of memory, no thread) into a CUresult: nothing may unwind
// through the C interface.
template <typename Body>
CUresult guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
}

}  // namespace gilsan::sim
