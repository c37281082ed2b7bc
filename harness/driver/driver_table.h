// DriverTable: every CUDA driver entry point gilsan calls, resolved from one dlopen'd driver
// (the real libcuda.so.1 or gilsan's simulated driver) through its cuGetProcAddress_v2.
//
// Nothing in gilsan links libcuda, so every binary builds and starts on a machine without a GPU,
// and the real and the simulated driver are reached through exactly the same code path.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/driver/driver_entry_points.h"

namespace gilsan {

// The extra entry points only the simulated driver exports (see harness/simcuda/gilsan_sim.h).
// They are null when the table holds the real driver.
struct SimDriverExtras {
  CUresult (*launch_work)(CUstream stream, unsigned long long microseconds) = nullptr;
  unsigned long long (*unsupported_calls)() = nullptr;
  const char* (*profile_source)() = nullptr;
};

class DriverTable {
 public:
// `name` is an identifier pasted into a declaration, where parentheses cannot go.
#define GILSAN_DRIVER_TABLE_MEMBER(name) decltype(&::name) name = nullptr;  // NOLINT(bugprone-macro-parentheses)
  GILSAN_DRIVER_ENTRY_POINTS(GILSAN_DRIVER_TABLE_MEMBER)
#undef GILSAN_DRIVER_TABLE_MEMBER

  SimDriverExtras sim;

  // Loads the driver library at `path` (dlopen, RTLD_NOW | RTLD_LOCAL) and resolves every entry point.
  // An entry point the driver does not have is filled with a function that returns
  // CUDA_ERROR_NOT_SUPPORTED and is counted (missing_entry_points()), never a null pointer.
  // Throws DriverLoadError when the library or its cuGetProcAddress_v2 cannot be found.
  static std::unique_ptr<DriverTable> load(const std::string& path);

  ~DriverTable();
  DriverTable(const DriverTable&) = delete;
  DriverTable& operator=(const DriverTable&) = delete;

  const std::string& library_path() const { return library_path_; }
  bool is_simulated() const { return sim.launch_work != nullptr; }
  // Names of entry points the loaded driver did not resolve.
  const std::vector<std::string>& missing_entry_points() const { return missing_; }
  // How many times a missing entry point was called since load (all tables together).
  static unsigned long long missing_entry_point_calls();

  // "cuStreamSynchronize" etc. for a CUresult, through the driver's cuGetErrorName when it has one.
  std::string error_name(CUresult result) const;

 private:
  DriverTable() = default;
  void* handle_ = nullptr;
  std::string library_path_;
  std::vector<std::string> missing_;
};

class DriverLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How many entry points the table has, and their names in table order (for the probe and the profile).
const std::vector<std::string>& driver_entry_point_names();

}  // namespace gilsan
