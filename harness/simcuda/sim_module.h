// Modules (per context), libraries (context-independent) and the kernels and functions in them.
#pragma once

#include <cuda.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_kernels.h"

namespace gilsan::sim {

// All guarded by SimDriver::mutex.
struct SimFunction {
  SimContext* context = nullptr;
  const BuiltinKernel* kernel = nullptr;
  // Used in its context (launched, or got by cuKernelGetFunction): what a lazily loading driver
  // loads into the context at the first use. Which first uses wait for host functions is the
  // profile's enqueued-work table.
  bool used = false;
  CUfunction handle() { return reinterpret_cast<CUfunction>(this); }
};

struct SimModule {
  SimContext* context = nullptr;
  std::vector<std::string> kernel_names;
  std::map<std::string, std::shared_ptr<SimFunction>, std::less<>> functions;  // looked up so far
  CUmodule handle() { return reinterpret_cast<CUmodule>(this); }
};

struct SimKernel {
  const BuiltinKernel* kernel = nullptr;
  std::map<const SimContext*, std::shared_ptr<SimFunction>> per_context;
  CUkernel handle() { return reinterpret_cast<CUkernel>(this); }
};

struct SimLibrary {
  std::vector<std::string> kernel_names;
  std::map<std::string, std::shared_ptr<SimKernel>, std::less<>> kernels;
  CUlibrary handle() { return reinterpret_cast<CUlibrary>(this); }
};

// Requires the lock. The function to launch for `handle`, which may be a CUfunction or a CUkernel
// (cuLaunchKernel accepts both); a kernel resolves in `context`.
std::shared_ptr<SimFunction> resolve_function(CUfunction handle, SimContext& context);
// Requires the lock. The function of `kernel` in `context`, created on first use.
std::shared_ptr<SimFunction> function_of(SimKernel& kernel, SimContext& context);

// Requires the lock. The profile's first-use cell (enqueued_work.h) for a cuLaunchKernel of `handle`
// (a CUfunction or a CUkernel) that resolved to `function`, or null when the function was used
// before; marks it used.
const char* first_use_by_launch(CUfunction handle, SimFunction& function);
// Requires the lock. The same for cuKernelGetFunction.
const char* first_use_by_get_function(SimFunction& function);

}  // namespace gilsan::sim
