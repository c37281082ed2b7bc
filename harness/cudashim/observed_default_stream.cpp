// The driver table's entry points as cuda.h declares them by default (legacy default stream).
#include "harness/cudashim/observed_call.h"
#include "harness/driver/driver_entry_points.h"

namespace gilsan::cudashim {

std::span<const WrappedEntryPoint> default_stream_entry_points() {
  static const WrappedEntryPoint entries[] = {GILSAN_DRIVER_ENTRY_POINTS(GILSAN_SHIM_OBSERVED_ENTRY)};
  return entries;
}

}  // namespace gilsan::cudashim
