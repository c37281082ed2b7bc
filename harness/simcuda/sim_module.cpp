#include "harness/simcuda/sim_module.h"

#include <utility>

#include "harness/simcuda/sim_context.h"

namespace gilsan::sim {

std::shared_ptr<SimFunction> function_of(SimKernel& kernel, SimContext& context) {
  auto& slot = kernel.per_context[&context];
  if (!slot) {
    slot = std::make_shared<SimFunction>();
    slot->context = &context;
    slot->kernel = kernel.kernel;
    SimDriver::instance().functions.add(slot);
  }
  return slot;
}

std::shared_ptr<SimFunction> resolve_function(CUfunction handle, SimContext& context) {
  auto& driver = SimDriver::instance();
  if (auto function = driver.functions.find(handle)) return function;
  if (auto kernel = driver.kernels.find(handle)) return function_of(*kernel, context);
  return nullptr;
}

namespace {

bool take_first_use(SimFunction& function) { return !std::exchange(function.used, true); }

}  // namespace

const char* first_use_by_launch(CUfunction handle, SimFunction& function) {
  const bool through_kernel = SimDriver::instance().kernels.find(handle) != nullptr;
  if (!take_first_use(function)) return nullptr;
  return through_kernel ? "cuLaunchKernel#first-library-kernel" : "cuLaunchKernel#first-module-function";
}

const char* first_use_by_get_function(SimFunction& function) {
  return take_first_use(function) ? "cuKernelGetFunction#first" : nullptr;
}

}  // namespace gilsan::sim
