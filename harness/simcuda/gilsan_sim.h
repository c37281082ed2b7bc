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

#include "harness/driverhooks/driver_observer.h"

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

/* The observer API (gilsanSimSetObserver) is driver_observer.h's: the forwarding driver exports it too. */

#ifdef __cplusplus
}
#endif

#endif /* GILSAN_SIM_H */
