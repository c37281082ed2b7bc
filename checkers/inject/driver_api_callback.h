// One driver-API callback as the injection logic sees it: CUPTI's CUpti_CallbackData reduced to
// what InjectHandler reads and writes. cupti_adapter.cpp fills it from CUPTI; tests fill it by hand
// around calls into the simulated driver, which has no CUPTI.
#pragma once

#include <cstdint>

namespace gilsan::checkers::inject {

// Which CUPTI callback domain a callback comes from.
enum class ApiDomain : std::uint8_t {
  driver,   // CUPTI_CB_DOMAIN_DRIVER_API: callback_id is a CUpti_driver_api_trace_cbid
  runtime,  // CUPTI_CB_DOMAIN_RUNTIME_API: a CUpti_runtime_api_trace_cbid; params are not read
};

struct DriverApiCallback {
  bool entering = true;        // CUPTI_API_ENTER, else CUPTI_API_EXIT
  std::uint32_t callback_id = 0;  // CUpti_driver_api_trace_cbid (or runtime's, see domain)
  const char* symbol = "";     // the exported name CUPTI reports, e.g. "cuLaunchHostFunc_ptsz"
  // The call's parameter struct (generated_cuda_meta.h, e.g. cuLaunchHostFunc_params). At entry the
  // handler may rewrite it: the driver then runs with the rewritten arguments (undocumented, checked
  // by the start-up self-test).
  void* params = nullptr;
  const int* result = nullptr;  // at exit: the CUresult the call returns
  void* context = nullptr;      // the context current for the call (CUPTI's context), may be null
  // One 64-bit slot that lives from this call's entry to its exit (CUPTI's correlationData).
  std::uint64_t* correlation = nullptr;
  ApiDomain domain = ApiDomain::driver;
};

}  // namespace gilsan::checkers::inject
