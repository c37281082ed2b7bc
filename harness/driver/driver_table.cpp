#include "harness/driver/driver_table.h"

#include <dlfcn.h>

#include <atomic>
#include <string_view>

namespace gilsan {
namespace {

std::atomic<unsigned long long> g_missing_calls{0};

// A typed stand-in for an entry point the driver lacks: same signature, no effect, counted.
template <typename Fn>
struct MissingEntryPoint;

template <typename... Args>
struct MissingEntryPoint<CUresult(CUDAAPI*)(Args...)> {
  static CUresult CUDAAPI call(Args...) {
    g_missing_calls.fetch_add(1, std::memory_order_relaxed);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
};

// cuda.h keeps declaring the first version of these entry points, while the driver answers a
// request at CUDA_VERSION with a later one of a different signature (measured on 580.159.04:
// cuStreamGetCtx at 13000 returned cuStreamGetCtx_v2 and crashed when called with the old arguments).
int requested_version(std::string_view name) {
  if (name == "cuStreamGetCtx" || name == "cuCtxSynchronize" || name == "cuCtxGetDevice") return 12000;
  return CUDA_VERSION;
}

using GetProcAddressFn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t,
                                             CUdriverProcAddressQueryResult*);

}  // namespace

std::unique_ptr<DriverTable> DriverTable::load(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw DriverLoadError("cannot load CUDA driver '" + path + "': " + (why ? why : "unknown dlopen error"));
  }
  auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    dlclose(handle);
    throw DriverLoadError("'" + path + "' is not a CUDA driver: it exports no cuGetProcAddress_v2");
  }

  std::unique_ptr<DriverTable> table(new DriverTable());
  table->handle_ = handle;
  table->library_path_ = path;

  // Ask for the versions this build's cuda.h declares, so each member's type matches its target.
  auto resolve = [&](const char* name, auto& member) {
    using Fn = std::remove_reference_t<decltype(member)>;
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = get_proc(name, &fn, requested_version(name), CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (rc == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && fn != nullptr) {
      member = reinterpret_cast<Fn>(fn);
    } else {
      member = &MissingEntryPoint<Fn>::call;
      table->missing_.emplace_back(name);
    }
  };
#define GILSAN_RESOLVE_ENTRY(name) resolve(#name, table->name);
  GILSAN_DRIVER_ENTRY_POINTS(GILSAN_RESOLVE_ENTRY)
#undef GILSAN_RESOLVE_ENTRY

  // The simulated driver's own entry points; the real driver has none of these symbols.
  table->sim.launch_work = reinterpret_cast<decltype(table->sim.launch_work)>(dlsym(handle, "gilsanSimLaunchWork"));
  table->sim.unsupported_calls =
      reinterpret_cast<decltype(table->sim.unsupported_calls)>(dlsym(handle, "gilsanSimUnsupportedCalls"));
  table->sim.profile_source =
      reinterpret_cast<decltype(table->sim.profile_source)>(dlsym(handle, "gilsanSimProfileSource"));
  return table;
}

DriverTable::~DriverTable() {
  // The driver keeps threads of its own (callback threads) that may still run its code, so the
  // library stays mapped for the life of the process: dlclose would unmap code under them.
}

unsigned long long DriverTable::missing_entry_point_calls() { return g_missing_calls.load(); }

std::string DriverTable::error_name(CUresult result) const {
  const char* name = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUresult(" + std::to_string(static_cast<int>(result)) + ")";
}

const std::vector<std::string>& driver_entry_point_names() {
  static const std::vector<std::string> names = {
#define GILSAN_ENTRY_NAME(name) #name,
      GILSAN_DRIVER_ENTRY_POINTS(GILSAN_ENTRY_NAME)
#undef GILSAN_ENTRY_NAME
  };
  return names;
}

}  // namespace gilsan
