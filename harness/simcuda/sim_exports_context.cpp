// Primary and created contexts, and the calling thread's current context.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_stream.h"

using namespace gilsan::sim;

namespace {

// Scheduling and mapping flags change nothing in the sim; other bits are not context flags.
constexpr unsigned kContextFlags = CU_CTX_SCHED_MASK | CU_CTX_BLOCKING_SYNC | CU_CTX_MAP_HOST |
                                   CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE |
                                   CU_CTX_SYNC_MEMOPS;

// The body of a primary-context call on device `dev`, under the driver's lock.
template <typename Body>
CUresult on_device_locked(CUdevice dev, Body&& body) {
  auto& driver = SimDriver::instance();
  SimDevice* device = driver.device(dev);
  if (device == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  Lock lock(driver.mutex);
  return body(*device, lock);
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  ApiScope api(entry("cuDevicePrimaryCtxRetain"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    SimDevice* device = driver.device(dev);
    if (device == nullptr) return CUDA_ERROR_INVALID_DEVICE;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    Lock lock(driver.mutex);
    // A last release may still be tearing the primary context down; the retain comes after it.
    driver.progress.wait(lock, [&] { return !device->primary || !device->primary->closing || device->primary->destroyed; });
    if (!device->primary) {
      device->primary = create_context(*device, true);
    } else if (device->primary->destroyed) {
      revive_primary_context(device->primary);
    }
    device->primary_references += 1;
    *pctx = device->primary->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  // Dropping the last reference destroys the primary context, and the real driver holds that back
  // like cuCtxDestroy while a host function runs (H200, 580.159.04: tests/sim's outside case, whose
  // host function runs in a created context). The profile's own cell is the probe's recipe, a release
  // that is not the last.
  const bool destroys = [&] {
    auto& driver = SimDriver::instance();
    SimDevice* device = driver.device(dev);
    Lock lock(driver.mutex);
    return device != nullptr && device->primary_references == 1;
  }();
  ApiScope api(destroys ? entry("cuCtxDestroy") : entry("cuDevicePrimaryCtxRelease"), on_current_context(),
               "cuDevicePrimaryCtxRelease");
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return on_device_locked(dev, [](SimDevice& device, Lock& lock) {
      if (device.primary_references == 0) return CUDA_ERROR_INVALID_CONTEXT;
      if (--device.primary_references == 0) destroy_context(lock, device.primary);
      return CUDA_SUCCESS;
    });
  }));
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) {
  // Measured on the H200 (580.159.04, docs/reliability.md "Driver faults"): the reset waits for the
  // primary context's queued device work and runs its queued host functions before it returns, as
  // cuCtxDestroy does, so it is judged as cuCtxDestroy (blocks while a host function runs). The
  // context is then inactive until the next cuDevicePrimaryCtxRetain; the references already taken
  // stay counted.
  ApiScope api(entry("cuCtxDestroy"), on_current_context(), "cuDevicePrimaryCtxReset");
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return on_device_locked(dev, [](SimDevice& device, Lock& lock) {
      if (device.primary && !device.primary->destroyed) destroy_context(lock, device.primary);
      return CUDA_SUCCESS;
    });
  }));
}

CUresult CUDAAPI cuCtxCreate(CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags, CUdevice dev) {
  ApiScope api(entry("cuCtxCreate"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    SimDevice* device = driver.device(dev);
    if (device == nullptr) return CUDA_ERROR_INVALID_DEVICE;
    if (pctx == nullptr || (flags & ~kContextFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
    if (ctxCreateParams != nullptr &&
        (ctxCreateParams->numExecAffinityParams != 0 || ctxCreateParams->cigParams != nullptr))
      return driver.unsupported();  // execution affinity and CIG are not modelled
    Lock lock(driver.mutex);
    *pctx = create_context(*device, false)->handle();
    push_current_context(*pctx);
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) {
  // The real driver blocks cuCtxDestroy of any context while a host function runs in the calling
  // thread's current context (measured: docs/results/2026-12-02-h200-580.159.04/probe.md).
  ApiScope api(entry("cuCtxDestroy"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimContext> context = find_context(ctx);
    if (!context || context->is_primary) return CUDA_ERROR_INVALID_CONTEXT;
    destroy_context(lock, context);
    if (current_context_handle() == ctx) pop_current_context();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  ApiScope api(entry("cuCtxPushCurrent"), on_context(ctx));
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  if (!find_context(ctx)) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  push_current_context(ctx);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext* pctx) {
  ApiScope api(entry("cuCtxPopCurrent"), on_current_context());
  if (api.refused()) return api.result();
  if (current_context_handle() == nullptr) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  CUcontext popped = pop_current_context();
  if (pctx != nullptr) *pctx = popped;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  ApiScope api(entry("cuCtxSetCurrent"), on_context(ctx));
  if (api.refused()) return api.result();
  if (ctx != nullptr) {
    Lock lock(SimDriver::instance().mutex);
    if (!find_context(ctx)) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  }
  replace_current_context(ctx);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
  ApiScope api(entry("cuCtxGetCurrent"), on_current_context());
  if (api.refused()) return api.result();
  if (pctx == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *pctx = current_context_handle();
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  ApiScope api(entry("cuCtxGetDevice"), on_current_context());
  if (api.refused()) return api.result();
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  Lock lock(SimDriver::instance().mutex);
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  *device = context->device->ordinal;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  ApiScope api(entry("cuCtxGetStreamPriorityRange"), on_current_context());
  if (api.refused()) return api.result();
  // The range belongs to the current context's device, so there must be one; either pointer may be
  // NULL when the caller does not want that bound.
  Lock lock(SimDriver::instance().mutex);
  if (!current_context()) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (leastPriority != nullptr) *leastPriority = kLeastStreamPriority;
  if (greatestPriority != nullptr) *greatestPriority = kGreatestStreamPriority;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  ApiScope api(entry("cuCtxSynchronize"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    wait_for(lock, completion_of(*context));
    release_above_thresholds();
    return context->sticky_error;
  }));
}

}  // extern "C"
