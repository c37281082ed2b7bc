// Initialization, version, error strings, devices, and the sim's own gilsanSim* entry points.
#include <cstring>

#include "harness/simcuda/sim_injection.h"
#include "harness/simcuda/gilsan_sim.h"
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_device_attributes.h"
#include "harness/simcuda/sim_errors.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/driverhooks/observer_registry.h"
#include "harness/simcuda/sim_stream.h"

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuInit(unsigned int Flags) {
  const bool initialized_before = SimDriver::instance().initialized();
  ApiScope api(entry("cuInit"), on_current_context());
  if (api.refused()) return api.result();
  if (Flags != 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  CUresult result = SimDriver::instance().initialize();
  // The first cuInit runs before the driver (and GILSAN_SIM_FAIL) is configured, so ApiScope could
  // not apply an injected failure of cuInit itself: it is applied here, once configured.
  if (result == CUDA_SUCCESS && !initialized_before) result = SimDriver::instance().injected_failures().next(entry("cuInit"));
  if (result == CUDA_SUCCESS) load_injection_library();
  return api.finish(result);
}

// The driver's private export tables are not modeled: the call refuses, and stays out of cuGetProcAddress
// (so an implementation that needs them, e.g. the CUDA runtime under CuPy, is told the sim lacks them).
// It is exported all the same because libraries that find it with dlsym call it without checking for
// NULL: NVRTC's nvrtcCompileProgram does, and crashed in a process with the sim loaded where a process
// with no driver at all compiles.
CUresult CUDAAPI cuGetExportTable(const void** ppExportTable, const CUuuid* /*pExportTableId*/) {
  if (ppExportTable != nullptr) *ppExportTable = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuDriverGetVersion(int* driverVersion) {
  ApiScope api(entry("cuDriverGetVersion"), on_current_context());
  if (api.refused()) return api.result();
  if (driverVersion == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *driverVersion = CUDA_VERSION;  // the sim implements the interface of the cuda.h it was built with
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  ApiScope api(entry("cuGetErrorName"), on_current_context());
  if (api.refused()) return api.result();
  if (pStr == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *pStr = error_name(error);
  return api.finish(*pStr == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  ApiScope api(entry("cuGetErrorString"), on_current_context());
  if (api.refused()) return api.result();
  if (pStr == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *pStr = error_description(error);
  return api.finish(*pStr == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  ApiScope api(entry("cuDeviceGetCount"), on_current_context());
  if (api.refused()) return api.result();
  if (count == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *count = SimDriver::instance().device_count();
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  ApiScope api(entry("cuDeviceGet"), on_current_context());
  if (api.refused()) return api.result();
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (SimDriver::instance().device(ordinal) == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  ApiScope api(entry("cuDeviceGetName"), on_current_context());
  if (api.refused()) return api.result();
  const SimDevice* device = SimDriver::instance().device(dev);
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  if (name == nullptr || len <= 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  std::size_t length = std::min(device->name.size(), static_cast<std::size_t>(len) - 1);
  std::memcpy(name, device->name.data(), length);
  name[length] = '\0';
  return api.finish(CUDA_SUCCESS);
}

// A UUID of its own per simulated device (numba-cuda and cuda.core read it to name a device): the
// same on every run, different for each device, and not one a real GPU could have ("gilsan-sim" and
// the ordinal).
CUresult CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  ApiScope api(entry("cuDeviceGetUuid"), on_current_context());
  if (api.refused()) return api.result();
  if (uuid == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (SimDriver::instance().device(dev) == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  constexpr char kPrefix[] = "gilsan-sim-dev";
  static_assert(sizeof kPrefix <= sizeof uuid->bytes);
  std::memset(uuid->bytes, 0, sizeof uuid->bytes);
  std::memcpy(uuid->bytes, kPrefix, sizeof kPrefix - 1);
  uuid->bytes[sizeof uuid->bytes - 1] = static_cast<char>(dev);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  ApiScope api(entry("cuDeviceGetAttribute"), on_current_context());
  if (api.refused()) return api.result();
  if (pi == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (SimDriver::instance().device(dev) == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  std::optional<int> value = device_attribute(attrib, dev);
  if (!value) return api.finish(SimDriver::instance().unsupported());
  *pi = *value;
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  ApiScope api(entry("cuDeviceTotalMem"), on_current_context());
  if (api.refused()) return api.result();
  const SimDevice* device = SimDriver::instance().device(dev);
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  if (bytes == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *bytes = device->total_memory;
  return api.finish(CUDA_SUCCESS);
}

// The sim's own entry points (gilsan_sim.h).

CUresult gilsanSimLaunchWork(CUstream stream, unsigned long long microseconds) {
  // Device work is the counterpart of a kernel launch, so it follows cuLaunchKernel's policy: that of
  // a warm launch, since it loads nothing.
  ApiScope api(entry("cuLaunchKernel"), on_stream(stream), "gilsanSimLaunchWork");
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    api.decide_first_use(lock, nullptr);
    std::shared_ptr<SimStream> target;
    if (CUresult rc = resolve_stream(stream, DefaultStream::Legacy, target); rc != CUDA_SUCCESS) return rc;
    return submit(lock, *target, DeviceWork{std::chrono::microseconds(microseconds)});
  }));
}

unsigned long long gilsanSimUnsupportedCalls(void) { return SimDriver::instance().unsupported_calls.load(); }

const char* gilsanSimProfileSource(void) {
  auto& driver = SimDriver::instance();
  return driver.initialized() ? driver.profile_source() : "";
}

const char* gilsanSimProfileJson(void) {
  auto& driver = SimDriver::instance();
  return driver.initialized() ? driver.profile_json() : "";
}

const char* gilsanSimLastError(void) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);  // pairs with the write in cuInit; the text never changes afterwards
  return driver.last_error();
}

CUresult gilsanSimSetObserver(const GilsanSimObserver* observer) { return gilsan::driverhooks::install_observer(observer); }

}  // extern "C"
