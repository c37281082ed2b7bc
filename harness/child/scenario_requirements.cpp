#include "harness/child/scenario_requirements.h"

#include <algorithm>

#ifdef GILSAN_WITH_DRIVER
#include "harness/driver/driver_selection.h"
#endif

namespace gilsan {
namespace {

struct ResolvedDriver {
  std::string kind;  // "real" or "sim"
  int devices = 0;
};

// Opens the driver the module would open, to learn its kind and device count. The table is closed
// again before the scenario runs; the module opens its own.
std::optional<ResolvedDriver> resolve_driver(const std::string& request, std::string& why_not) {
#ifdef GILSAN_WITH_DRIVER
  try {
    DriverChoice choice = open_driver(parse_driver_request(request));
    ResolvedDriver resolved{to_string(choice.kind), 0};
    if (CUresult rc = choice.table->cuDeviceGetCount(&resolved.devices); rc != CUDA_SUCCESS) {
      why_not = "cuDeviceGetCount failed (" + choice.table->error_name(rc) + ")";
      return std::nullopt;
    }
    return resolved;
  } catch (const std::exception& error) {
    why_not = error.what();
    return std::nullopt;
  }
#else
  (void)request;
  why_not = "this gilsan was built without the driver table (harness/driver)";
  return std::nullopt;
#endif
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

std::optional<std::string> unmet_requirement(const ScenarioHeader& header, const std::string& driver_request,
                                             EmbeddedPython& python) {
  const bool needs_two_devices =
      std::find(header.needs.begin(), header.needs.end(), kNeedTwoDevices) != header.needs.end();
  const bool one_driver_only = !(header.allows_driver("sim") && header.allows_driver("real"));

  std::string why_not;
  std::optional<ResolvedDriver> resolved;
  if ((driver_request == "auto" && one_driver_only) || needs_two_devices)
    resolved = resolve_driver(driver_request, why_not);

  const std::string kind = driver_request != "auto" ? driver_request : resolved ? resolved->kind : "";
  if (one_driver_only) {
    if (kind.empty()) return "drivers = " + joined(header.drivers) + ", and --driver auto cannot be resolved: " + why_not;
    if (!header.allows_driver(kind))
      return "drivers = " + joined(header.drivers) + "; this run uses the " + kind + " driver";
  }
  for (const std::string& need : header.needs) {
    if (need == kNeedTwoDevices) {
      if (!resolved) return "needs two-devices: " + why_not;
      if (resolved->devices < 2)
        return "needs two-devices: the " + resolved->kind + " driver has " + std::to_string(resolved->devices) +
               " device(s)";
    } else if (std::optional<std::string> reason = python.why_not_importable(need)) {
      return "needs " + need + ": " + *reason;
    }
  }
  return std::nullopt;
}

}  // namespace gilsan
