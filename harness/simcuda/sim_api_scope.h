// ApiScope: the one place where the profile's behaviour around host functions is applied.
//
// Every exported entry point opens an ApiScope first. The scope reports the call to the observer,
// refuses calls before cuInit, and then applies the profile:
//  - on a driver callback thread (inside a host function): inside_host_function[entry] —
//    not-permitted returns CUDA_ERROR_NOT_PERMITTED, hangs blocks forever, allowed lets the call do
//    its work (which may then wait for real on a data dependency, as on the GPU);
//  - on any other thread: while_host_function_runs[entry] — blocks waits until no host function of
//    the call's context is running, returns proceeds at once.
// No entry point has special handling elsewhere; the model only does the work the call asks for.
#pragma once

#include <cuda.h>

#include <new>

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
  // Records the call's result for the observer and returns it.
  CUresult finish(CUresult result) {
    result_ = result;
    return result;
  }

 private:
  void apply_policy(EntryId entry);
  const char* name_;
  ApiTarget target_;
  CUcontext context_ = nullptr;  // the context the call acts on, as reported and as waited for
  CUresult result_ = CUDA_SUCCESS;
};

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
