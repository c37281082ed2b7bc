// cuGetProcAddress_v2's two tables: each unversioned name of driver_entry_points.h with the symbol
// this build's cuda.h maps it to, in the default form and in the per-thread-default-stream form.
#pragma once

#include <string_view>
#include <vector>

namespace gilsan::sim {

struct ProcAddressEntry {
  std::string_view name;
  void* function;
};

const std::vector<ProcAddressEntry>& default_proc_addresses();     // sim_proc_address.cpp
const std::vector<ProcAddressEntry>& per_thread_proc_addresses();  // sim_exports_per_thread.cpp

}  // namespace gilsan::sim
