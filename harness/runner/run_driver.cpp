#include "harness/runner/run_driver.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "harness/driver/driver_selection.h"
#include "harness/driver/install_layout.h"
#include "harness/runner/run_folders.h"

namespace gilsan {
namespace {

// The file a loaded driver table came from, found through one of its functions.
std::string library_of(const void* function) {
  Dl_info info{};
  if (function == nullptr || ::dladdr(function, &info) == 0 || info.dli_fname == nullptr) return {};
  return std::filesystem::absolute(info.dli_fname).string();
}

std::string temporary_root() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

}  // namespace

RunDriver choose_run_driver(std::string_view request) {
  // The simulated driver is only linked for the child: nothing to load here.
  if (request == "sim") return RunDriver{"sim", "sim: requested", {}};
  DriverChoice choice;
  try {
    choice = open_driver(parse_driver_request(request));
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("--driver ") + std::string(request) + ": " + error.what());
  }
  RunDriver driver{to_string(choice.kind), choice.reason, {}};
  if (choice.kind == DriverKind::Real) driver.real_library = library_of(reinterpret_cast<const void*>(choice.table->cuInit));
  // The table goes with `choice`; the driver's library stays mapped (a DriverTable never dlcloses).
  return driver;
}

std::string forwarding_driver_path() {
  if (const char* chosen = std::getenv("GILSAN_CUDASHIM_LIBRARY"); chosen != nullptr && *chosen != '\0') return chosen;
  if (std::string installed = installed_file(installed_library_folder() + "/libgilsan_cudashim.so"); !installed.empty())
    return installed;
#ifdef GILSAN_CUDASHIM_LIBRARY_PATH
  if (std::filesystem::exists(GILSAN_CUDASHIM_LIBRARY_PATH)) return GILSAN_CUDASHIM_LIBRARY_PATH;
#endif
  return {};
}

DriverFolder::DriverFolder(const RunDriver& driver, bool forward) : driver_(driver) {
  if (driver.kind == "sim") {
    linked_library_ = simulated_driver_path();
  } else if (forward) {
    linked_library_ = forwarding_driver_path();
  }
  if (linked_library_.empty()) return;
  folder_ = make_run_folder(temporary_root(), "driver");
  const std::filesystem::path link = std::filesystem::path(folder_) / "libcuda.so.1";
  std::error_code error;
  std::filesystem::create_symlink(std::filesystem::absolute(linked_library_), link, error);
  if (error) {
    std::filesystem::remove_all(folder_);
    throw std::system_error(error, "cannot link " + link.string() + " to " + linked_library_);
  }
}

DriverFolder::~DriverFolder() {
  if (folder_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::vector<std::pair<std::string, std::string>> DriverFolder::child_environment() const {
  std::vector<std::pair<std::string, std::string>> environment{{"GILSAN_DRIVER", driver_.kind}};
  if (folder_.empty()) return environment;
  const char* inherited = std::getenv("LD_LIBRARY_PATH");
  const std::string link = folder_ + "/libcuda.so.1";
  environment.emplace_back("LD_LIBRARY_PATH",
                           inherited != nullptr && *inherited != '\0' ? folder_ + ":" + inherited : folder_);
  if (driver_.kind == "sim") {
    // The module opens the same file ctypes finds: one simulated driver in the process, not two.
    environment.emplace_back("GILSAN_SIM_LIBRARY", link);
  } else {
    environment.emplace_back("GILSAN_REAL_LIBCUDA", driver_.real_library);
  }
  return environment;
}

}  // namespace gilsan
