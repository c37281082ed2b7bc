// The per-thread forms (_ptsz, _ptds) of the entry points that take a stream: a NULL stream is the
// calling thread's per-thread default stream.
//
// With CUDA_API_PER_THREAD_DEFAULT_STREAM defined before cuda.h, cuda.h's macros turn each name
// defined here into its per-thread symbol (cuLaunchHostFunc -> cuLaunchHostFunc_ptsz,
// cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds), and the same X-macro list taken in this translation unit
// yields the table cuGetProcAddress_v2 answers with for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda.h>

#include "harness/driver/driver_entry_points.h"
#include "harness/simcuda/sim_proc_address.h"
#include "harness/simcuda/sim_stream_entry_points.h"

#define GILSAN_SIM_NULL_STREAM gilsan::sim::DefaultStream::PerThread
#include "harness/simcuda/sim_stream_exports.inc"

namespace gilsan::sim {

const std::vector<ProcAddressEntry>& per_thread_proc_addresses() {
  static const auto* entries = new std::vector<ProcAddressEntry>{
#define GILSAN_SIM_PER_THREAD_ENTRY(name) {#name, reinterpret_cast<void*>(&::name)},
      GILSAN_DRIVER_ENTRY_POINTS(GILSAN_SIM_PER_THREAD_ENTRY)
#undef GILSAN_SIM_PER_THREAD_ENTRY
  };
  return *entries;
}

}  // namespace gilsan::sim
