// Choosing the driver a run talks to: the real one, the simulated one, or whichever fits this machine.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "harness/driver/driver_table.h"

namespace gilsan {

enum class DriverRequest { Auto, Real, Sim };
enum class DriverKind { Real, Sim };

struct DriverChoice {
  DriverKind kind = DriverKind::Sim;
  std::string reason;  // one sentence: why this driver, e.g. "auto: cuInit failed (CUDA_ERROR_NO_DEVICE)"
  std::unique_ptr<DriverTable> table;
};

// "auto" | "real" | "sim"; throws std::invalid_argument naming the bad value.
DriverRequest parse_driver_request(std::string_view text);
const char* to_string(DriverKind kind);

// The simulated driver library: $GILSAN_SIM_LIBRARY, else the one this build produced, else the
// libgilsan_simcuda.so next to the binary that contains this code.
std::string simulated_driver_path();

// The real driver is libcuda.so.1 through the dynamic loader's search path.
inline constexpr const char* kRealDriverLibrary = "libcuda.so.1";

// Loads the requested driver. `auto` takes the real driver when it loads, cuInit(0) succeeds and it
// has at least one device; otherwise the simulated one. Throws DriverLoadError for a driver that was
// asked for by name and cannot be loaded or initialized.
DriverChoice open_driver(DriverRequest request);

}  // namespace gilsan
