#include "harness/driver/driver_selection.h"

#include "harness/driver/install_layout.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace gilsan {

DriverRequest parse_driver_request(std::string_view text) {
  if (text == "auto") return DriverRequest::Auto;
  if (text == "real") return DriverRequest::Real;
  if (text == "sim") return DriverRequest::Sim;
  throw std::invalid_argument("unknown driver '" + std::string(text) + "' (expected auto, real or sim)");
}

const char* to_string(DriverKind kind) { return kind == DriverKind::Real ? "real" : "sim"; }

std::string simulated_driver_path() {
  if (const char* env = std::getenv("GILSAN_SIM_LIBRARY"); env != nullptr && *env != '\0') return env;
  // An installed tree's own library comes before the build tree's, which may still exist but belongs
  // to another build (docs/installing.md).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&simulated_driver_path), &info) != 0 && info.dli_fname != nullptr) {
    auto beside = std::filesystem::path(info.dli_fname).parent_path() / "libgilsan_simcuda.so";
    if (std::filesystem::exists(beside)) return beside.string();
  }
  // LIBDIR/gilsan/driver/libcuda.so.1 first: the file a program finds through LD_LIBRARY_PATH, so that a
  // process that has both loads one simulated driver, not two (in a wheel it is a copy, not a link).
  for (const char* relative : {"/gilsan/driver/libcuda.so.1", "/libgilsan_simcuda.so"})
    if (std::string installed = installed_file(installed_library_folder() + relative); !installed.empty())
      return installed;
#ifdef GILSAN_SIM_LIBRARY_DEFAULT
  if (std::filesystem::exists(GILSAN_SIM_LIBRARY_DEFAULT)) return GILSAN_SIM_LIBRARY_DEFAULT;
#endif
  return "libgilsan_simcuda.so";
}

namespace {

// cuInit + a device count, or the reason the driver is unusable here.
std::string initialize(const DriverTable& table, int& devices) {
  devices = 0;
  if (CUresult rc = table.cuInit(0); rc != CUDA_SUCCESS) return "cuInit failed (" + table.error_name(rc) + ")";
  if (CUresult rc = table.cuDeviceGetCount(&devices); rc != CUDA_SUCCESS)
    return "cuDeviceGetCount failed (" + table.error_name(rc) + ")";
  if (devices < 1) return "the driver reports no device";
  return {};
}

DriverChoice open_simulated(std::string reason) {
  DriverChoice choice;
  choice.kind = DriverKind::Sim;
  choice.table = DriverTable::load(simulated_driver_path());
  int devices = 0;
  if (std::string failure = initialize(*choice.table, devices); !failure.empty())
    throw DriverLoadError("simulated driver '" + choice.table->library_path() + "': " + failure);
  choice.reason = std::move(reason);
  return choice;
}

}  // namespace

DriverChoice open_driver(DriverRequest request) {
  if (request == DriverRequest::Sim) return open_simulated("sim: requested");

  std::unique_ptr<DriverTable> real;
  std::string failure;
  try {
    real = DriverTable::load(kRealDriverLibrary);
    int devices = 0;
    failure = initialize(*real, devices);
    if (failure.empty()) {
      DriverChoice choice;
      choice.kind = DriverKind::Real;
      choice.reason = std::string(request == DriverRequest::Auto ? "auto" : "real") + ": " + kRealDriverLibrary +
                      " initialized with " + std::to_string(devices) + " device(s)";
      choice.table = std::move(real);
      return choice;
    }
  } catch (const DriverLoadError& error) {
    failure = error.what();
  }
  if (request == DriverRequest::Real) throw DriverLoadError("real driver: " + failure);
  return open_simulated("auto: real driver unusable (" + failure + "), using the simulated driver");
}

}  // namespace gilsan
