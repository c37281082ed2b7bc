// The same entry points compiled with per-thread default streams: cuda.h then names the stream-taking
// ones _ptsz/_ptds, the symbols a program built with --default-stream per-thread (or asking
// cuGetProcAddress with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) calls. The others come out as
// in the default list, with the same wrapper.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include "harness/cudashim/observed_call.h"
#include "harness/driver/driver_entry_points.h"

namespace gilsan::cudashim {

std::span<const WrappedEntryPoint> per_thread_entry_points() {
  static const WrappedEntryPoint entries[] = {GILSAN_DRIVER_ENTRY_POINTS(GILSAN_SHIM_OBSERVED_ENTRY)};
  return entries;
}

}  // namespace gilsan::cudashim
