// cuGetProcAddress_v2: how the driver table (and any other client) finds the sim's entry points.
#include "harness/simcuda/sim_proc_address.h"

#include <cuda.h>

#include <cstring>

#include "harness/driver/driver_entry_points.h"

namespace gilsan::sim {
namespace {

// Entry points whose current form appeared in a later CUDA version than the name itself; asking for
// an older version gets CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT rather than a function with a
// different signature from the one the caller was compiled against.
struct MinimumVersion {
  std::string_view name;
  int version;
};
constexpr MinimumVersion kMinimumVersions[] = {
    {"cuGraphAddKernelNode", 12000}, {"cuLibraryLoadData", 12000},      {"cuLibraryUnload", 12000},
    {"cuLibraryGetKernel", 12000},   {"cuKernelGetFunction", 12000},    {"cuStreamGetCaptureInfo", 12030},
    {"cuCtxCreate", 12050},          {"cuEventElapsedTime", 12080},     {"cuGraphInstantiateWithParams", 12000},
    // The forms with edge data (the _v2 symbols) came with CUDA 12.3.
    {"cuGraphGetEdges", 12030},      {"cuGraphNodeGetDependencies", 12030}, {"cuGraphNodeGetDependentNodes", 12030},
    {"cuGraphAddNode", 12030}, {"cuStreamUpdateCaptureDependencies", 12030},
    {"cuStreamBeginCaptureToGraph", 12030},              {"cuGraphAddDependencies", 12030},      {"cuGraphRemoveDependencies", 12030},
};

int minimum_version(std::string_view name) {
  for (const MinimumVersion& entry : kMinimumVersions)
    if (entry.name == name) return entry.version;
  return 0;
}

const ProcAddressEntry* find(const std::vector<ProcAddressEntry>& table, std::string_view name) {
  for (const ProcAddressEntry& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace

const std::vector<ProcAddressEntry>& default_proc_addresses() {
  static const auto* entries = new std::vector<ProcAddressEntry>{
#define GILSAN_SIM_DEFAULT_ENTRY(name) {#name, reinterpret_cast<void*>(&::name)},
      GILSAN_DRIVER_ENTRY_POINTS(GILSAN_SIM_DEFAULT_ENTRY)
#undef GILSAN_SIM_DEFAULT_ENTRY
      {"cuGetProcAddress", reinterpret_cast<void*>(&::cuGetProcAddress)},
      // Not in the driver table (gilsan itself never resets a device), but a program may.
      {"cuDevicePrimaryCtxReset", reinterpret_cast<void*>(&::cuDevicePrimaryCtxReset)},
  };
  return *entries;
}

}  // namespace gilsan::sim

extern "C" CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                             CUdriverProcAddressQueryResult* symbolStatus) {
  using namespace gilsan::sim;
  auto report = [&](CUdriverProcAddressQueryResult status) {
    if (symbolStatus != nullptr) *symbolStatus = status;
  };
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  constexpr cuuint64_t kKnownFlags = CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if ((flags & ~kKnownFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const ProcAddressEntry* entry = find(per_thread ? per_thread_proc_addresses() : default_proc_addresses(), symbol);
  if (entry == nullptr && per_thread) entry = find(default_proc_addresses(), symbol);
  if (entry == nullptr) {
    report(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (cudaVersion < minimum_version(symbol)) {
    report(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = entry->function;
  report(CU_GET_PROC_ADDRESS_SUCCESS);
  return CUDA_SUCCESS;
}
