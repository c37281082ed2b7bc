// The thin CUPTI adapter of libgilsan_inject.so: the entry point the CUDA driver calls when
// CUDA_INJECTION64_PATH names this library, the CUPTI subscription, and the translation of
// CUpti_CallbackData into the DriverApiCallback that InjectHandler (tested on the simulated driver)
// works on. Nothing else lives here, because nothing here can run without a GPU.
#include <cupti.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "checkers/inject/inject_runtime.h"
#include "checkers/inject/observed_front_end.h"

namespace {

using gilsan::checkers::inject::DriverApiCallback;
using gilsan::checkers::inject::InjectRuntime;

// Never destroyed: the driver may run wrapped host functions and callbacks until the very end.
InjectRuntime* g_runtime = nullptr;

void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  DriverApiCallback callback;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) callback.domain = gilsan::checkers::inject::ApiDomain::runtime;
  callback.entering = info->callbackSite == CUPTI_API_ENTER;
  callback.callback_id = id;
  callback.symbol = info->functionName;
  // CUPTI hands the parameters as const; writing them is the rewrite the self-test verifies.
  callback.params = const_cast<void*>(info->functionParams);
  callback.result = static_cast<const int*>(info->functionReturnValue);
  callback.context = info->context;
  callback.correlation = info->correlationData;
  auto& runtime = *static_cast<InjectRuntime*>(user);
  const auto start = runtime.stats ? gilsan::checkers::inject::OwnTimeStats::Clock::now()
                                   : gilsan::checkers::inject::OwnTimeStats::Clock::time_point();
  try {
    if (callback.domain == gilsan::checkers::inject::ApiDomain::runtime) {
      runtime.handler->on_runtime_api(callback);
    } else {
      runtime.handler->on_driver_api(callback);
    }
  } catch (...) {
    // Out of memory inside a driver callback: nothing may unwind into the driver.
  }
  if (runtime.stats) {
    const auto took = gilsan::checkers::inject::OwnTimeStats::Clock::now() - start;
    const bool launch = domain == CUPTI_CB_DOMAIN_DRIVER_API && (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc ||
                                                                 id == CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz);
    launch ? runtime.stats->add_launch_callback(took) : runtime.stats->add_other_callback(took);
  }
}

void finish_at_exit() {
  const int exit_code = gilsan::checkers::inject::finish_inject_runtime(*g_runtime);
  if (exit_code != 0) {
    std::fflush(nullptr);
    ::_exit(exit_code);
  }
}

const char* cupti_error(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text != nullptr ? text : "unknown CUPTI error";
}

// On one of gilsan's drivers: its observer is the source, CUPTI stays out (observed_front_end.h).
int start_observed(gilsan::checkers::SetObserver set_observer) {
  auto* runtime = new InjectRuntime();
  if (std::string error = gilsan::checkers::inject::start_injected_sanitizer(*runtime); !error.empty()) {
    std::cerr << "gilsan: injection off: " << error << std::endl;
    delete runtime;
    return 0;
  }
  gilsan::checkers::inject::attach_to_the_watchdog();
  if (std::string error = gilsan::checkers::inject::start_observed_front_end(*runtime, set_observer); !error.empty()) {
    std::cerr << "gilsan: injection off: " << error << std::endl;
    return 0;  // the runtime is not freed: the driver may have kept a pointer to it
  }
  g_runtime = runtime;
  std::atexit(finish_at_exit);
  return 1;
}

int start() {
  if (auto set_observer = gilsan::checkers::inject::loaded_driver_observer_setter()) return start_observed(set_observer);
  gilsan::checkers::inject::attach_to_the_watchdog();
  gilsan::checkers::inject::InjectedDriver driver;
  if (std::string missing = gilsan::checkers::inject::resolve_loaded_driver(driver); !missing.empty()) {
    std::cerr << "gilsan: injection off: " << missing << std::endl;
    return 0;
  }
  auto* runtime = new InjectRuntime();
  if (std::string error = gilsan::checkers::inject::start_inject_runtime(*runtime, driver); !error.empty()) {
    std::cerr << "gilsan: injection off: " << error << std::endl;
    delete runtime;
    return 0;
  }
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult result = cuptiSubscribe(&subscriber, on_callback, runtime); result != CUPTI_SUCCESS) {
    std::cerr << "gilsan: injection off: cuptiSubscribe: " << cupti_error(result) << std::endl;
    delete runtime;
    return 0;
  }
  // Whole domains, not a list of callback ids: cuda-call-in-host-function reports every call made
  // inside a host function, whatever it is, so every driver entry point must call back; the cost
  // of a callback for a call of no interest is one table load (call_classes.h). The runtime domain
  // is there for runtime calls inside host functions, which the runtime may refuse before any
  // driver call of its own is made (cudaMalloc on driver 580.159.04 did).
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API}) {
    if (CUptiResult result = cuptiEnableDomain(1, subscriber, domain); result != CUPTI_SUCCESS) {
      std::cerr << "gilsan: injection off: cuptiEnableDomain(" << static_cast<int>(domain)
                << "): " << cupti_error(result) << std::endl;
      cuptiUnsubscribe(subscriber);
      delete runtime;
      return 0;
    }
  }
  g_runtime = runtime;
  std::atexit(finish_at_exit);
  return 1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  static int started = 0;
  std::call_once(once, [] { started = start(); });
  return started;
}
