// libgilsan_cupti_floor.so: an injection library (CUDA_INJECTION64_PATH) that subscribes to CUPTI
// callbacks and does nothing in its callback. run_gpu_checks.sh measures the host-function overhead
// with it to split the injected sanitizer's cost into what CUPTI's callbacks cost any subscriber and
// what gilsan's own handling adds on top.
//   GILSAN_CUPTI_FLOOR=domains (default): every driver and runtime API call, as libgilsan_inject.so
//     subscribes;
//   GILSAN_CUPTI_FLOOR=launch: only cuLaunchHostFunc and cuStreamSynchronize (and their _ptsz forms),
//     the least a host-function wrapper needs -- to see whether CUPTI's cost depends on how much of
//     the API is subscribed;
//   GILSAN_CUPTI_FLOOR=wrap: as launch, and each launch's arguments are rewritten to a trampoline
//     that runs the user's function from a heap pair {function, data} and frees it: the least any
//     wrapping injection does (one allocation and free, one indirect call), with no checking at all.
#include <cupti.h>  // with the driver API's parameter structs (cuLaunchHostFunc_params)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

struct UserHostFunction {
  CUhostFn function;
  void* data;
};

void CUDA_CB trampoline(void* opaque) {
  const auto* user = static_cast<UserHostFunction*>(opaque);
  user->function(user->data);
  delete user;
}

// Rewrites a launch at its entry (both launch entry points have the same parameter layout); the
// synchronize callbacks pass through untouched.
void CUPTIAPI wrap_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId id, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  if (id != CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc && id != CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz) return;
  auto* params = static_cast<cuLaunchHostFunc_params*>(const_cast<void*>(info->functionParams));
  if (params->fn == nullptr) return;
  params->userData = new UserHostFunction{params->fn, params->userData};
  params->fn = trampoline;
}

bool subscribe_launch_only(CUpti_SubscriberHandle subscriber) {
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
                              CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz}) {
    if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) != CUPTI_SUCCESS) return false;
  }
  return true;
}

bool subscribe_domains(CUpti_SubscriberHandle subscriber) {
  return cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS &&
         cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  const char* mode = std::getenv("GILSAN_CUPTI_FLOOR");
  const bool wrap = mode != nullptr && std::strcmp(mode, "wrap") == 0;
  const bool launch_only = wrap || (mode != nullptr && std::strcmp(mode, "launch") == 0);
  CUpti_SubscriberHandle subscriber = nullptr;
  if (cuptiSubscribe(&subscriber, wrap ? wrap_callback : ignore_callback, nullptr) != CUPTI_SUCCESS ||
      !(launch_only ? subscribe_launch_only(subscriber) : subscribe_domains(subscriber))) {
    std::fprintf(stderr, "gilsan_cupti_floor: cannot subscribe to CUPTI callbacks\n");
    return 0;
  }
  std::fprintf(stderr, "gilsan_cupti_floor: subscribed to %s, %s\n",
               launch_only ? "cuLaunchHostFunc and cuStreamSynchronize" : "every driver and runtime API call",
               wrap ? "wrapping each host function in a heap-allocated trampoline" : "doing nothing");
  return 1;
}
