#include "harness/pymodule/stream_work.h"

#include <chrono>
#include <map>
#include <mutex>

#include "harness/driver/device_work.h"
#include "harness/pymodule/context_object.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"

namespace gilsan::pymodule {
namespace {

// The spin kernel of device_work's PTX, loaded once per context for graph kernel nodes (a stream launch
// goes through launch_device_work, which keeps its own cache). Touched with the GIL held, but the GIL
// is released around the loads, so a second thread may load the same module: the loser unloads its copy.
std::map<CUcontext, CUfunction>& spin_kernels() {
  static auto* const kernels = new std::map<CUcontext, CUfunction>();
  return *kernels;
}

bool spin_kernel_or_raise(const DriverTable& table, CUcontext context, CUfunction* function) {
  if (const auto found = spin_kernels().find(context); found != spin_kernels().end()) {
    *function = found->second;
    return true;
  }
  CUmodule module = nullptr;
  if (!check_driver(call_driver("cuModuleLoadData", Gil::Release,
                                [&] { return table.cuModuleLoadData(&module, test_kernels_ptx()); }),
                    "cuModuleLoadData", context))
    return false;
  CUfunction spin = nullptr;
  const CUresult result =
      call_driver("cuModuleGetFunction", Gil::Release, [&] { return table.cuModuleGetFunction(&spin, module, "gilsan_spin_ns"); });
  if (result != CUDA_SUCCESS) {
    call_driver("cuModuleUnload", Gil::Release, [&] { return table.cuModuleUnload(module); });
    return check_driver(result, "cuModuleGetFunction", context);
  }
  const auto [entry, inserted] = spin_kernels().emplace(context, spin);
  if (!inserted) call_driver("cuModuleUnload", Gil::Release, [&] { return table.cuModuleUnload(module); });
  *function = entry->second;
  return true;
}

}  // namespace

bool enqueue_device_work_or_raise(CUstream stream, CUcontext context, unsigned long long microseconds) {
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return false;
  // The legacy and per-thread streams follow the current context, which must exist for the launch.
  if (context == nullptr && !current_context_or_raise(&context)) return false;
  const CUresult result = call_driver("cuLaunchKernel", Gil::Release, DriverCallTarget{context, stream, nullptr}, [&] {
    return launch_device_work(*table, stream, std::chrono::microseconds(microseconds));
  });
  if (!check_driver(result, "cuLaunchKernel", context)) return false;
  // Declared here, on both drivers alike: the module is what knows that this work ends, and when.
  observe_device_work_enqueued(microseconds);
  return true;
}

bool add_work_node_or_raise(CUgraph graph, const CUgraphNode* dependencies, std::size_t dependency_count,
                            unsigned long long microseconds, CUgraphNode* node) {
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return false;
  const DriverTable* table = opened_driver_table();
  CUfunction spin = nullptr;
  if (!spin_kernel_or_raise(*table, context, &spin)) return false;
  unsigned long long nanoseconds = microseconds * 1000;
  void* arguments[] = {&nanoseconds};
  CUDA_KERNEL_NODE_PARAMS params{};
  params.func = spin;
  params.gridDimX = params.gridDimY = params.gridDimZ = 1;
  params.blockDimX = params.blockDimY = params.blockDimZ = 1;
  params.kernelParams = arguments;  // copied by the driver when the node is added
  return check_driver(call_driver("cuGraphAddKernelNode", Gil::Release, [&] {
                        return table->cuGraphAddKernelNode(node, graph, dependencies, dependency_count, &params);
                      }),
                      "cuGraphAddKernelNode", context);
}

void forget_device_work_kernels(CUcontext context) {
  spin_kernels().erase(context);
  if (const DriverTable* table = opened_driver_table()) forget_test_kernels(*table, context);
}

}  // namespace gilsan::pymodule
