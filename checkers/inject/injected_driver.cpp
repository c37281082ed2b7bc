#include "checkers/inject/injected_driver.h"

#include <dlfcn.h>

namespace gilsan::checkers::inject {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

template <typename Function>
bool resolve(GetProcAddress get_proc_address, const char* name, Function& slot, std::string& missing) {
  void* address = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (get_proc_address(name, &address, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||
      address == nullptr) {
    missing += missing.empty() ? name : std::string(", ") + name;
    return false;
  }
  slot = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

bool InjectedDriver::complete() const {
  return launch_host_func && stream_create && stream_synchronize && stream_destroy &&
         stream_is_capturing && context_push && context_pop && exchange_capture_mode &&
         get_error_name;
}

std::string resolve_loaded_driver(InjectedDriver& driver) {
  void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return "libcuda.so.1 is not loaded in this process";
  auto get_proc_address = reinterpret_cast<GetProcAddress>(::dlsym(library, "cuGetProcAddress_v2"));
  // The reference dlopen added is dropped; the driver stays loaded (it loaded us).
  ::dlclose(library);
  if (get_proc_address == nullptr) return "libcuda.so.1 has no cuGetProcAddress_v2";
  std::string missing;
  resolve(get_proc_address, "cuLaunchHostFunc", driver.launch_host_func, missing);
  resolve(get_proc_address, "cuStreamCreate", driver.stream_create, missing);
  resolve(get_proc_address, "cuStreamSynchronize", driver.stream_synchronize, missing);
  resolve(get_proc_address, "cuStreamDestroy", driver.stream_destroy, missing);
  resolve(get_proc_address, "cuStreamIsCapturing", driver.stream_is_capturing, missing);
  resolve(get_proc_address, "cuCtxPushCurrent", driver.context_push, missing);
  resolve(get_proc_address, "cuCtxPopCurrent", driver.context_pop, missing);
  resolve(get_proc_address, "cuThreadExchangeStreamCaptureMode", driver.exchange_capture_mode, missing);
  resolve(get_proc_address, "cuGetErrorName", driver.get_error_name, missing);
  return missing.empty() ? std::string() : "libcuda.so.1 lacks " + missing;
}

}  // namespace gilsan::checkers::inject
