/* The observer API both of gilsan's drivers export: the simulated driver (harness/simcuda) and the
 * forwarding driver in front of the real one (harness/cudashim: libcuda.so.1). An observer installed
 * with gilsanSimSetObserver (found with dlsym; the real driver alone has none) sees every driver call
 * and host function of the process, whichever of the two drivers it runs on.
 */
#ifndef GILSAN_DRIVER_OBSERVER_H
#define GILSAN_DRIVER_OBSERVER_H

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Observer hooks: called synchronously on the thread concerned. Used by gilsan's checkers and its
 * board. Hooks must not call back into the driver and must not block. gilsan's forwarding driver
 * (harness/cudashim: libcuda.so.1 in front of the real driver) exports the same gilsanSimSetObserver
 * and calls the same hooks, so one observer watches either driver. */
typedef struct GilsanSimApiCall {
  const char* entry_point; /* as cuda.h spells it without a version suffix, e.g. "cuMemAlloc" */
  CUcontext context;       /* the context the call acts on, when known */
  CUstream stream;         /* the stream argument, when the call has one */
  CUevent event;           /* the event argument, when the call has one */
} GilsanSimApiCall;

typedef struct GilsanSimHostFunction {
  /* The run key: one per host function a stream launch enqueued, one per graph host node (every
   * launch of the graph runs that node again under the same key). host_function_enqueued and
   * host_function_begin of one run carry the same key, so an observer can count each key's runs
   * that were enqueued and never began. */
  unsigned long long id;
  CUcontext context;
  CUstream stream;         /* the stream it was launched on; for a graph host node, the graph's launch stream */
  CUhostFn fn;             /* NULL for a cuStreamAddCallback callback */
  void* user_data;
  CUstreamCallback callback; /* the cuStreamAddCallback callback; NULL for a host function */
} GilsanSimHostFunction;

#define GILSAN_SIM_OBSERVER_ABI 2

typedef struct GilsanSimObserver {
  unsigned int abi_version; /* GILSAN_SIM_OBSERVER_ABI */
  void* user;
  void (*api_enter)(void* user, const GilsanSimApiCall* call);
  void (*api_exit)(void* user, const GilsanSimApiCall* call, CUresult result);
  void (*host_function_begin)(void* user, const GilsanSimHostFunction* host_function);
  void (*host_function_end)(void* user, const GilsanSimHostFunction* host_function);
  /* On the enqueuing thread, once the driver accepted a host function: after each stream launch
   * (cuLaunchHostFunc, cuStreamAddCallback) that was not captured, and for a graph launch once per
   * host node of the graph. Called after the launch, so on another thread the run may already have
   * begun. */
  void (*host_function_enqueued)(void* user, const GilsanSimHostFunction* host_function);
} GilsanSimObserver;

/* Installs `observer` (copied), or removes it with NULL. Returns CUDA_ERROR_INVALID_VALUE for an
 * unknown abi_version. */
CUresult gilsanSimSetObserver(const GilsanSimObserver* observer);

#ifdef __cplusplus
}
#endif

#endif /* GILSAN_DRIVER_OBSERVER_H */
