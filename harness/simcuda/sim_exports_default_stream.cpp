// The default forms of the entry points that take a stream: a NULL stream is the legacy stream.
// The per-thread forms are in sim_exports_per_thread.cpp; both are sim_stream_exports.inc.
#include <cuda.h>

#include "harness/simcuda/sim_stream_entry_points.h"

#define GILSAN_SIM_NULL_STREAM gilsan::sim::DefaultStream::Legacy
#include "harness/simcuda/sim_stream_exports.inc"
