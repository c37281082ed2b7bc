// The attributes a simulated device reports: those of an H100/H200-class GPU (compute capability 9.0).
#pragma once

#include <cuda.h>

#include <optional>

namespace gilsan::sim {

// The value of `attribute` for device `ordinal`, or nullopt for an attribute the sim does not model.
std::optional<int> device_attribute(CUdevice_attribute attribute, int ordinal);

}  // namespace gilsan::sim
