// Which CUDA driver a run's scenario children use, decided once in the parent, and the private folder
// that puts that driver first on a child's library path as libcuda.so.1.
//
// Whatever a scenario loads -- the gilsan module, ctypes.CDLL("libcuda.so.1"), CuPy's runtime,
// cuda.bindings -- then reaches the same driver: the simulated one, or, on the real driver with the
// sanitizer on, gilsan's forwarding driver (harness/cudashim) in front of the real libcuda.so.1, whose
// observer hooks feed the child's sanitizer and the watchdog's board as the simulated driver's do.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gilsan {

struct RunDriver {
  std::string kind;    // "sim" or "real", what the children are told (--driver, GILSAN_DRIVER)
  std::string reason;  // why: "auto: libcuda.so.1 initialized with 1 device(s)", ...
  std::string real_library;  // real: the libcuda.so.1 this process loaded, for the forwarding driver
};

// `request` is auto, real or sim. auto and real load and initialize the real driver here, once per
// command (cuInit and a device count). Throws std::runtime_error with one line when `real` was asked for
// and is not usable, or when the simulated driver cannot be loaded.
RunDriver choose_run_driver(std::string_view request);

// The forwarding driver this build made ($GILSAN_CUDASHIM_LIBRARY wins), or "" when it was not built.
std::string forwarding_driver_path();

// One run's folder holding libcuda.so.1, a link to the driver the child must load. Removed with the
// object. `forward`: on the real driver, put the forwarding driver in front of it (the sanitizer is
// on); without it the child loads the real driver as it is, and no folder is made.
class DriverFolder {
 public:
  DriverFolder(const RunDriver& driver, bool forward);
  ~DriverFolder();
  DriverFolder(const DriverFolder&) = delete;
  DriverFolder& operator=(const DriverFolder&) = delete;

  // LD_LIBRARY_PATH with the folder first, GILSAN_DRIVER, and what the chosen driver reads.
  std::vector<std::pair<std::string, std::string>> child_environment() const;

 private:
  const RunDriver driver_;  // a copy: a caller may build the folder from a temporary (gilsan bench does)
  std::string folder_;  // "" when no folder was needed
  std::string linked_library_;
};

}  // namespace gilsan
