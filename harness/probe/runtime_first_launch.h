// The CUDA runtime's first launch of a kernel, for the enqueued-work cell
// cudaLaunchKernel#first-runtime-kernel (harness/profile/enqueued_work.cpp).
//
// A program built with nvcc does not load its kernels itself: code nvcc generates registers the
// program's fatbin with libcudart at start-up (__cudaRegisterFatBinary, __cudaRegisterFunction per
// kernel, __cudaRegisterFatBinaryEnd), and the runtime loads it into a context when it needs to: on
// the kernel's first cudaLaunchKernel under lazy loading, when it sets up its context under EAGER.
// The recipe registers the test kernels' fatbin (nvcc -fatbin of harness/driver/spin_kernel.cu at
// build time) the same way through the dlopen'd libcudart, sets the runtime up on device 0 (whose
// primary context the probe's fixture uses too), and makes the kernel's first cudaLaunchKernel on S2.
//
// libcudart talks to libcuda.so.1 through the driver's private export tables, which the simulated
// driver does not provide: the cell is measured only where the runtime comparison runs (the real
// driver, or --cudart), and is otherwise listed in `unmeasured`.
#pragma once

#include <string>

#include "harness/probe/call_recipe.h"

namespace gilsan::probe {

// The recipe of the cell (entry point "cudaLaunchKernel"); not one of call_recipes(), since the call
// matrices cover driver entry points only. Its preparation throws SetupFailure when no libcudart
// loads, it lacks the registration entry points, or it finds no device.
const CallRecipe& runtime_first_launch_recipe();

// Child side: the libcudart the recipe loads ("" = default_runtime_libraries()); set before it runs.
void use_runtime_library(const std::string& path);

}  // namespace gilsan::probe
