// Driver entry point names as the core expects them: without version and per-thread suffixes.
// CUPTI reports the exported symbol ("cuStreamSynchronize_ptsz", "cuCtxCreate_v4",
// "cuMemcpyHtoDAsync_v2_ptsds"); the driver profile and the checkers' reports use the name cuda.h
// documents ("cuStreamSynchronize", "cuCtxCreate").
#pragma once

#include <string_view>

namespace gilsan::checkers {

struct EntryPointName {
  std::string_view base;     // "cuStreamSynchronize"
  bool per_thread = false;   // a _ptsz/_ptds variant: the NULL stream means the per-thread stream
};

// Strips trailing "_ptsz", "_ptds" and "_vN" suffixes in any order.
EntryPointName split_entry_point_name(std::string_view symbol);

}  // namespace gilsan::checkers
