#include "harness/cudashim/quiet_queries.h"

#include <cstring>

namespace gilsan::cudashim {
namespace {

// Of the driver table's entry points (harness/driver/driver_entry_points.h), those that read state and
// return: nothing in them waits for the device, another stream or a host function.
constexpr const char* kQuietQueries[] = {
    "cuDriverGetVersion",    "cuGetErrorName",        "cuGetErrorString",
    "cuDeviceGetCount",      "cuDeviceGet",           "cuDeviceGetName",
    "cuDeviceGetUuid",       "cuDeviceGetAttribute",  "cuDeviceTotalMem",
    "cuDeviceGetDefaultMemPool",
    "cuCtxGetCurrent",       "cuCtxGetDevice",        "cuCtxGetStreamPriorityRange",
    "cuStreamGetCtx",        "cuStreamGetFlags",      "cuStreamGetPriority",
    "cuStreamIsCapturing",   "cuStreamGetCaptureInfo",
    "cuEventElapsedTime",
};

}  // namespace

std::span<const char* const> quiet_queries() { return kQuietQueries; }

bool is_quiet_query(const char* entry_point) {
  if (entry_point == nullptr) return false;
  for (const char* query : kQuietQueries) {
    if (std::strcmp(query, entry_point) == 0) return true;
  }
  return false;
}

}  // namespace gilsan::cudashim
