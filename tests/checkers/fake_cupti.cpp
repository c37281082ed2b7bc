// generated_cuda_meta.h needs cuda.h's internal versioning types (see checkers/inject/call_params.cpp).
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include "tests/checkers/fake_cupti.h"

#include <cstdint>
#include <stdexcept>

namespace gilsan::checkers::testing {
namespace {

FakeCupti* g_fake = nullptr;

// cuCtxSynchronize takes no arguments; CUPTI still hands a parameter pointer.
struct NoParams {
  char unused = 0;
};

FakeCupti& fake() {
  if (g_fake == nullptr) throw std::logic_error("no FakeCupti is alive");
  return *g_fake;
}

// One call as CUPTI would frame it: entry callback, the call with the (maybe rewritten)
// parameters, exit callback.
template <typename Params, typename Call>
CUresult through_cupti(CUpti_driver_api_trace_cbid id, const char* symbol, Params params, Call call) {
  FakeCupti& cupti = fake();
  const Params original = params;
  std::uint64_t correlation = 0;
  CUcontext current = nullptr;
  cupti.sim().context_get_current(&current);
  inject::DriverApiCallback callback{true, static_cast<std::uint32_t>(id), symbol, &params, nullptr, current,
                                     &correlation};
  if (cupti.handler() != nullptr) cupti.handler()->on_driver_api(callback);
  const CUresult result = call(cupti.honour_rewrites() ? params : original);
  const int code = static_cast<int>(result);
  callback.entering = false;
  callback.result = &code;
  if (cupti.handler() != nullptr) cupti.handler()->on_driver_api(callback);
  return result;
}

CUresult injected_launch(CUstream stream, CUhostFn function, void* user_data) {
  return fake().launch_host_func(stream, function, user_data);
}
CUresult injected_stream_create(CUstream* stream, unsigned int flags) {
  return fake().sim().stream_create(stream, flags);
}
CUresult injected_stream_synchronize(CUstream stream) { return fake().stream_synchronize(stream); }
CUresult injected_stream_destroy(CUstream stream) { return fake().sim().stream_destroy(stream); }
CUresult injected_is_capturing(CUstream stream, CUstreamCaptureStatus* status) {
  return fake().sim().stream_is_capturing(stream, status);
}
CUresult injected_push(CUcontext context) { return fake().sim().context_push(context); }
CUresult injected_pop(CUcontext* context) { return fake().sim().context_pop(context); }
// The sim models no capture modes: the exchange succeeds and changes nothing.
CUresult injected_exchange_capture_mode(CUstreamCaptureMode*) { return CUDA_SUCCESS; }
CUresult injected_error_name(CUresult result, const char** name) {
  return fake().sim().get_error_name(result, name);
}

}  // namespace

FakeCupti::FakeCupti(const SimCalls& sim, bool honour_rewrites) : sim_(sim), honour_rewrites_(honour_rewrites) {
  if (g_fake != nullptr) throw std::logic_error("one FakeCupti at a time");
  g_fake = this;
}

FakeCupti::~FakeCupti() { g_fake = nullptr; }

inject::InjectedDriver FakeCupti::injected_driver() const {
  inject::InjectedDriver driver;
  driver.launch_host_func = injected_launch;
  driver.stream_create = injected_stream_create;
  driver.stream_synchronize = injected_stream_synchronize;
  driver.stream_destroy = injected_stream_destroy;
  driver.stream_is_capturing = injected_is_capturing;
  driver.context_push = injected_push;
  driver.context_pop = injected_pop;
  driver.exchange_capture_mode = injected_exchange_capture_mode;
  driver.get_error_name = injected_error_name;
  return driver;
}

CUresult FakeCupti::launch_host_func(CUstream stream, CUhostFn function, void* user_data) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc",
                       cuLaunchHostFunc_params{stream, function, user_data},
                       [this](const cuLaunchHostFunc_params& p) { return sim_.launch_host_func(p.hStream, p.fn, p.userData); });
}

CUresult FakeCupti::launch_host_func_per_thread(CUstream stream, CUhostFn function, void* user_data) {
  // The sim has no _ptsz exports: the NULL stream of a _ptsz call is CU_STREAM_PER_THREAD.
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz, "cuLaunchHostFunc_ptsz",
                       cuLaunchHostFunc_ptsz_params{stream, function, user_data},
                       [this](const cuLaunchHostFunc_ptsz_params& p) {
                         return sim_.launch_host_func(p.hStream != nullptr ? p.hStream : CU_STREAM_PER_THREAD, p.fn,
                                                      p.userData);
                       });
}

CUresult FakeCupti::stream_destroy(CUstream stream) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, "cuStreamDestroy_v2", cuStreamDestroy_v2_params{stream},
                       [this](const cuStreamDestroy_v2_params& p) { return sim_.stream_destroy(p.hStream); });
}

void FakeCupti::act_out_stream_destroy(CUstream stream) {
  through_cupti(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, "cuStreamDestroy_v2", cuStreamDestroy_v2_params{stream},
                [](const cuStreamDestroy_v2_params&) { return CUDA_SUCCESS; });
}

CUresult FakeCupti::stream_synchronize(CUstream stream) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize",
                       cuStreamSynchronize_params{stream},
                       [this](const cuStreamSynchronize_params& p) { return sim_.stream_synchronize(p.hStream); });
}

CUresult FakeCupti::context_synchronize() {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", NoParams{},
                       [this](const NoParams&) { return sim_.context_synchronize(); });
}

CUresult FakeCupti::primary_context_retain(CUcontext* context, CUdevice device) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",
                       cuDevicePrimaryCtxRetain_params{context, device},
                       [this](const cuDevicePrimaryCtxRetain_params& p) { return sim_.primary_context_retain(p.pctx, p.dev); });
}

CUresult FakeCupti::mem_alloc(CUdeviceptr* pointer, size_t bytes) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2",
                       cuMemAlloc_v2_params{pointer, bytes},
                       [this](const cuMemAlloc_v2_params& p) { return sim_.mem_alloc(p.dptr, p.bytesize); });
}

CUresult FakeCupti::mem_free(CUdeviceptr pointer) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", cuMemFree_v2_params{pointer},
                       [this](const cuMemFree_v2_params& p) { return sim_.mem_free(p.dptr); });
}

CUresult FakeCupti::graph_add_host_node(CUgraphNode* node, CUgraph graph, const CUDA_HOST_NODE_PARAMS* params) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode, "cuGraphAddHostNode",
                       cuGraphAddHostNode_params{node, graph, nullptr, 0, params},
                       [this](const cuGraphAddHostNode_params& p) {
                         return sim_.graph_add_host_node(p.phGraphNode, p.hGraph, p.dependencies, p.numDependencies,
                                                         p.nodeParams);
                       });
}

CUresult FakeCupti::begin_capture(CUstream stream, CUstreamCaptureMode mode) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2",
                       cuStreamBeginCapture_v2_params{stream, mode},
                       [this](const cuStreamBeginCapture_v2_params& p) { return sim_.begin_capture(p.hStream, p.mode); });
}

CUresult FakeCupti::end_capture(CUstream stream, CUgraph* graph) {
  return through_cupti(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture",
                       cuStreamEndCapture_params{stream, graph},
                       [this](const cuStreamEndCapture_params& p) { return sim_.end_capture(p.hStream, p.phGraph); });
}

int FakeCupti::runtime_call(std::uint32_t callback_id, const char* symbol, const std::function<int()>& body) {
  std::uint64_t correlation = 0;
  CUcontext current = nullptr;
  sim_.context_get_current(&current);
  inject::DriverApiCallback callback{true, callback_id, symbol, nullptr, nullptr, current, &correlation};
  callback.domain = inject::ApiDomain::runtime;
  if (handler_ != nullptr) handler_->on_runtime_api(callback);
  const int result = body();
  callback.entering = false;
  callback.result = &result;
  if (handler_ != nullptr) handler_->on_runtime_api(callback);
  return result;
}

}  // namespace gilsan::checkers::testing
