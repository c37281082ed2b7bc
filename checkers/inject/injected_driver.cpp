#include "checkers/inject/injected_driver.h"

#include <dlfcn.h>

#include "harness/profile/entry_point_resolver.h"

namespace gilsan::checkers::inject {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

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
  EntryPointResolver resolver([get_proc_address](const char* name) -> void* {
    void* address = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (get_proc_address(name, &address, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS) return nullptr;
    return address;
  });
  resolver.resolve("cuLaunchHostFunc", driver.launch_host_func);
  resolver.resolve("cuStreamCreate", driver.stream_create);
  resolver.resolve("cuStreamSynchronize", driver.stream_synchronize);
  resolver.resolve("cuStreamDestroy", driver.stream_destroy);
  resolver.resolve("cuStreamIsCapturing", driver.stream_is_capturing);
  resolver.resolve("cuCtxPushCurrent", driver.context_push);
  resolver.resolve("cuCtxPopCurrent", driver.context_pop);
  resolver.resolve("cuThreadExchangeStreamCaptureMode", driver.exchange_capture_mode);
  resolver.resolve("cuGetErrorName", driver.get_error_name);
  return resolver.missing().empty() ? std::string() : "libcuda.so.1 lacks " + resolver.missing_list();
}

}  // namespace gilsan::checkers::inject
