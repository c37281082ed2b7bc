#include "harness/probe/probe_fixture.h"

#include "harness/driver/device_work.h"

namespace gilsan::probe {

void CUDA_CB do_nothing(void*) {}

ProbeFixture::ProbeFixture(const DriverTable& table) : driver(table) {
  check("cuDeviceGet(0)", driver.cuDeviceGet(&device, 0));
  check("cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain(&context, device));
  make_current();
  check("cuStreamCreate (S1)", driver.cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  check("cuStreamCreate (S2)", driver.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
}

void ProbeFixture::check(const std::string& step, CUresult code) const {
  if (code != CUDA_SUCCESS) throw SetupFailure(step, code, name(code));
}

void ProbeFixture::make_current() const { check("cuCtxSetCurrent", driver.cuCtxSetCurrent(context)); }

const void* ProbeFixture::module_image() const { return test_kernels_ptx(); }

const char* ProbeFixture::spin_kernel_name() const { return "gilsan_spin_ns"; }

void ProbeFixture::launch_device_work(CUstream stream, std::chrono::microseconds duration) const {
  check("device work (gilsan_spin_ns)", gilsan::launch_device_work(driver, stream, duration));
}

CUstream ProbeFixture::new_stream() const {
  CUstream stream = nullptr;
  check("cuStreamCreate", driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

CUevent ProbeFixture::new_event() const {
  CUevent event = nullptr;
  check("cuEventCreate", driver.cuEventCreate(&event, CU_EVENT_DEFAULT));
  return event;
}

CUevent ProbeFixture::new_recorded_event(CUstream stream) const {
  CUevent event = new_event();
  check("cuEventRecord", driver.cuEventRecord(event, stream));
  return event;
}

CUdeviceptr ProbeFixture::new_device_memory(std::size_t bytes) const {
  CUdeviceptr pointer = 0;
  check("cuMemAlloc", driver.cuMemAlloc(&pointer, bytes));
  return pointer;
}

void* ProbeFixture::new_pinned_memory(std::size_t bytes) const {
  void* pointer = nullptr;
  check("cuMemAllocHost", driver.cuMemAllocHost(&pointer, bytes));
  return pointer;
}

CUmodule ProbeFixture::load_module() const {
  CUmodule module = nullptr;
  check("cuModuleLoadData", driver.cuModuleLoadData(&module, module_image()));
  return module;
}

CUfunction ProbeFixture::spin_function(CUmodule module) const {
  CUfunction function = nullptr;
  check("cuModuleGetFunction", driver.cuModuleGetFunction(&function, module, spin_kernel_name()));
  return function;
}

CUlibrary ProbeFixture::load_library() const {
  CUlibrary library = nullptr;
  check("cuLibraryLoadData",
        driver.cuLibraryLoadData(&library, module_image(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  return library;
}

CUkernel ProbeFixture::spin_kernel(CUlibrary library) const {
  CUkernel kernel = nullptr;
  check("cuLibraryGetKernel", driver.cuLibraryGetKernel(&kernel, library, spin_kernel_name()));
  return kernel;
}

CUcontext ProbeFixture::new_context() const {
  CUcontext created = nullptr;
  CUcontext popped = nullptr;
  check("cuCtxCreate", driver.cuCtxCreate(&created, nullptr, 0, device));
  check("cuCtxPopCurrent", driver.cuCtxPopCurrent(&popped));
  return created;
}

CUgraph ProbeFixture::new_graph() const {
  CUgraph graph = nullptr;
  check("cuGraphCreate", driver.cuGraphCreate(&graph, 0));
  return graph;
}

CUgraphNode ProbeFixture::add_empty_node(CUgraph graph) const {
  CUgraphNode node = nullptr;
  check("cuGraphAddEmptyNode", driver.cuGraphAddEmptyNode(&node, graph, nullptr, 0));
  return node;
}

CUgraphNode ProbeFixture::add_host_node(CUgraph graph) const {
  CUgraphNode node = nullptr;
  CUDA_HOST_NODE_PARAMS params{do_nothing, nullptr};
  check("cuGraphAddHostNode", driver.cuGraphAddHostNode(&node, graph, nullptr, 0, &params));
  return node;
}

CUgraphExec ProbeFixture::instantiate(CUgraph graph) const {
  CUgraphExec exec = nullptr;
  check("cuGraphInstantiateWithFlags", driver.cuGraphInstantiateWithFlags(&exec, graph, 0));
  return exec;
}

CUuserObject ProbeFixture::new_user_object() const {
  CUuserObject object = nullptr;
  check("cuUserObjectCreate",
        driver.cuUserObjectCreate(&object, nullptr, do_nothing, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  return object;
}

CUmemoryPool ProbeFixture::default_pool() const {
  CUmemoryPool pool = nullptr;
  check("cuDeviceGetDefaultMemPool", driver.cuDeviceGetDefaultMemPool(&pool, device));
  return pool;
}

}  // namespace gilsan::probe
