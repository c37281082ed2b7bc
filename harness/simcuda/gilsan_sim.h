/* The simulated CUDA driver's own entry points, beside the driver API it exports.
 *
 * libgilsan_simcuda.so exports real driver-API symbols (cuInit, cuGetProcAddress_v2, ...) so the same
 * code runs on it and on libcuda.so.1. The functions below exist only in the simulated driver; callers
 * find them with dlsym and must cope with their absence (the real driver).
 *
 * Configuration is read at cuInit from the environment:
 *   GILSAN_SIM_PROFILE  path of a driver profile (JSON, docs/driver-profile.md); default: the profile
 *                       compiled in (profiles/h200-580.159.04.json)
 *   GILSAN_SIM_DEVICES  number of devices, 1..8 (default 1)
 */
#ifndef GILSAN_SIM_H
#define GILSAN_SIM_H

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues device work that keeps `stream` busy for `microseconds`: the simulated counterpart of a
 * spin kernel on a real GPU. */
CUresult gilsanSimLaunchWork(CUstream stream, unsigned long long microseconds);

/* How many calls reached an entry point the simulated driver does not model (each returned
 * CUDA_ERROR_NOT_SUPPORTED). */
unsigned long long gilsanSimUnsupportedCalls(void);

/* The path of the profile in use, or "builtin:<name>" for the compiled-in one ("" before cuInit). */
const char* gilsanSimProfileSource(void);

/* The profile in use as canonical JSON (the format of the files in profiles/); "" before cuInit. */
const char* gilsanSimProfileJson(void);

/* Why cuInit failed (CUDA_ERROR_INVALID_VALUE): a malformed profile ("FILE:LINE: message naming the
 * key") or a bad GILSAN_SIM_DEVICES; "" when it did not fail. The same text went to stderr once. */
const char* gilsanSimLastError(void);

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

#endif /* GILSAN_SIM_H */
