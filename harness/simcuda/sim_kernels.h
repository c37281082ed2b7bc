// The test kernels the simulated driver can run, by name, and reading kernel names out of an image.
//
// A real module is PTX or a cubin compiled by nvcc from harness/driver/spin_kernel.cu; the sim does
// not execute device code, it recognises the kernels by their entry names and does their work:
//   gilsan_spin_ns(u64 nanoseconds)                  device work of that duration
//   gilsan_fill_u32(u64 dst, u32 value, u64 count)   writes `value` to count 32-bit words at dst
// and, with GILSAN_SIM_KERNELS=empty, runs every other kernel of an image as empty device work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/simcuda/sim_work.h"

namespace gilsan::sim {

struct BuiltinKernel {
  std::string_view name;
  std::vector<std::size_t> parameter_sizes;  // bytes of each parameter, in order
};

// Null for a name the sim cannot run.
const BuiltinKernel* find_builtin_kernel(std::string_view name);
// What any other kernel of an image runs as under GILSAN_SIM_KERNELS=empty: no parameters, no work.
// Its name is empty, which no image's kernel has.
const BuiltinKernel& empty_kernel();

// The kernel entry names in a module image: PTX text (`.entry NAME`), an ELF cubin (`.text.NAME`
// sections) or a fatbin holding either. False when the image is none of these.
bool kernel_names_in_image(const void* image, std::vector<std::string>& names);

// Reads a launch's arguments (kernelParams, or the `extra` buffer) into a KernelRun.
// Returns CUDA_ERROR_INVALID_VALUE when neither is given or the buffer is too small.
CUresult pack_kernel_arguments(const BuiltinKernel& kernel, void** kernel_params, void** extra, KernelRun& out);

}  // namespace gilsan::sim
