// Device work through the driver's module path, identical on the real and the simulated driver.
//
// The test kernels of spin_kernel.cu are compiled to PTX at build time and embedded here. The first
// launch in a context loads them with cuModuleLoadData (once per context and driver); each launch is
// a cuLaunchKernel on the given stream. On the real driver that runs a spin kernel on the GPU; on the
// simulated driver the same calls become simulated device work.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "harness/driver/driver_table.h"

namespace gilsan {

// The embedded PTX text (null-terminated) with the entries gilsan_spin_ns and gilsan_fill_u32.
const char* test_kernels_ptx();

// Keeps `stream` busy for `duration` (gilsan_spin_ns). NULL means the legacy stream of the current context.
CUresult launch_device_work(const DriverTable& driver, CUstream stream, std::chrono::microseconds duration);

// Writes `value` to `count` 32-bit words at `destination` in stream order (gilsan_fill_u32).
CUresult launch_fill_u32(const DriverTable& driver, CUstream stream, CUdeviceptr destination, std::uint32_t value,
                         std::size_t count);

// Forgets the module loaded for `context` (a launch that finds its module gone also reloads it once).
void forget_test_kernels(const DriverTable& driver, CUcontext context);

}  // namespace gilsan
