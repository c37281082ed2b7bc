// Recipes for initialization, devices and contexts.
#include "harness/probe/call_recipe.h"

namespace gilsan::probe {

void add_device_and_context_recipes(std::vector<CallRecipe>& out) {
  using F = const ProbeFixture&;
  using S = RecipeState&;
  const std::string constant = "answers a constant the driver knows without touching a device or context";

  out.push_back({.id = "cuInit",
                 .description = "cuInit(0) in a process where the driver is already initialized",
                 .call = [](F f, S) { return f.driver.cuInit(0); },
                 .trivial_because = "the driver is already initialized, so the call has nothing to do"});
  out.push_back({.id = "cuDriverGetVersion",
                 .description = "cuDriverGetVersion(&version)",
                 .call = [](F f, S) {
                   int version = 0;
                   return f.driver.cuDriverGetVersion(&version);
                 },
                 .trivial_because = constant});
  out.push_back({.id = "cuDeviceGetCount",
                 .description = "cuDeviceGetCount(&count)",
                 .call = [](F f, S) {
                   int count = 0;
                   return f.driver.cuDeviceGetCount(&count);
                 },
                 .trivial_because = constant});
  out.push_back({.id = "cuDeviceGet",
                 .description = "cuDeviceGet(&device, 0)",
                 .call = [](F f, S) {
                   CUdevice device = 0;
                   return f.driver.cuDeviceGet(&device, 0);
                 },
                 .trivial_because = constant});
  out.push_back({.id = "cuDeviceGetName",
                 .description = "cuDeviceGetName of device 0",
                 .call = [](F f, S) {
                   char name[256] = {};
                   return f.driver.cuDeviceGetName(name, sizeof name, f.device);
                 }});
  out.push_back({.id = "cuDeviceGetUuid",
                 .description = "cuDeviceGetUuid of device 0",
                 .call = [](F f, S) {
                   CUuuid uuid{};
                   return f.driver.cuDeviceGetUuid(&uuid, f.device);
                 }});
  out.push_back({.id = "cuDeviceGetAttribute",
                 .description = "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) of device 0",
                 .call = [](F f, S) {
                   int value = 0;
                   return f.driver.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, f.device);
                 }});
  out.push_back({.id = "cuDeviceTotalMem",
                 .description = "cuDeviceTotalMem of device 0",
                 .call = [](F f, S) {
                   std::size_t bytes = 0;
                   return f.driver.cuDeviceTotalMem(&bytes, f.device);
                 }});
  out.push_back({.id = "cuDeviceGetDefaultMemPool",
                 .description = "cuDeviceGetDefaultMemPool of device 0",
                 .call = [](F f, S) {
                   CUmemoryPool pool = nullptr;
                   return f.driver.cuDeviceGetDefaultMemPool(&pool, f.device);
                 }});
  out.push_back({.id = "cuDeviceGetMemPool",
                 .description = "cuDeviceGetMemPool (the current pool) of device 0",
                 .call = [](F f, S) {
                   CUmemoryPool pool = nullptr;
                   return f.driver.cuDeviceGetMemPool(&pool, f.device);
                 }});
  out.push_back({.id = "cuDeviceSetMemPool",
                 .description = "makes device 0's default pool its current pool (as it already is)",
                 .prepare = [](F f, S s) { s.pool = f.default_pool(); },
                 .call = [](F f, S s) { return f.driver.cuDeviceSetMemPool(f.device, s.pool); }});
  out.push_back({.id = "cuDevicePrimaryCtxRetain",
                 .description = "one more reference to device 0's primary context (already active)",
                 .call = [](F f, S) {
                   CUcontext context = nullptr;
                   return f.driver.cuDevicePrimaryCtxRetain(&context, f.device);
                 }});
  out.push_back({.id = "cuDevicePrimaryCtxRelease",
                 .description = "drops a reference to the primary context taken in preparation (not the last)",
                 .prepare = [](F f, S) {
                   CUcontext context = nullptr;
                   f.check("cuDevicePrimaryCtxRetain", f.driver.cuDevicePrimaryCtxRetain(&context, f.device));
                 },
                 .call = [](F f, S) { return f.driver.cuDevicePrimaryCtxRelease(f.device); }});
  out.push_back({.id = "cuCtxCreate",
                 .description = "creates a new context on device 0 (pushed on the calling thread)",
                 .call = [](F f, S s) { return f.driver.cuCtxCreate(&s.context, nullptr, 0, f.device); }});
  out.push_back({.id = "cuCtxDestroy",
                 .description = "destroys an idle context created in preparation, from a thread whose "
                                "current context is the host function's",
                 .prepare = [](F f, S s) { s.context = f.new_context(); },
                 .call = [](F f, S s) { return f.driver.cuCtxDestroy(s.context); }});
  out.push_back({.id = "cuCtxPushCurrent",
                 .description = "pushes the primary context on the calling thread",
                 .call = [](F f, S) { return f.driver.cuCtxPushCurrent(f.context); }});
  out.push_back({.id = "cuCtxPopCurrent",
                 .description = "pops the calling thread's current context",
                 .call = [](F f, S s) { return f.driver.cuCtxPopCurrent(&s.context); }});
  out.push_back({.id = "cuCtxSetCurrent",
                 .description = "makes the primary context current on the calling thread",
                 .call = [](F f, S) { return f.driver.cuCtxSetCurrent(f.context); }});
  out.push_back({.id = "cuCtxGetCurrent",
                 .description = "asks for the calling thread's current context",
                 .call = [](F f, S s) { return f.driver.cuCtxGetCurrent(&s.context); }});
  out.push_back({.id = "cuCtxGetDevice",
                 .description = "asks for the device of the calling thread's current context",
                 .call = [](F f, S) {
                   CUdevice device = 0;
                   return f.driver.cuCtxGetDevice(&device);
                 }});
  out.push_back({.id = "cuCtxGetStreamPriorityRange",
                 .description = "asks for the stream priority range of the current context",
                 .call = [](F f, S) {
                   int least = 0;
                   int greatest = 0;
                   return f.driver.cuCtxGetStreamPriorityRange(&least, &greatest);
                 }});
  out.push_back({.id = "cuCtxSynchronize",
                 .description = "synchronizes the current context, which includes S1 and so the host function",
                 .call = [](F f, S) { return f.driver.cuCtxSynchronize(); },
                 .dependency = Dependency::OnHostFunction});
}

}  // namespace gilsan::probe
