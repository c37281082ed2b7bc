// A stand-in for CUPTI around the simulated driver, which has none: each call made through it
// hands the InjectHandler the same callbacks CUPTI would (API entry with the parameter struct the
// handler may rewrite, then API exit with the result and the same correlation slot), and the call
// reaches the sim with the rewritten arguments, or, with honour_rewrites off, with the original ones,
// as a driver that ignores the rewrite would.
//
// The handler's own driver calls go through it too (injected_driver()), so they reach the handler
// as nested callbacks, as they do under CUPTI.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>

#include "checkers/inject/inject_handler.h"

namespace gilsan::checkers::testing {

// The sim's entry points the fake calls, spelled with explicit types so that this header means the
// same in fake_cupti.cpp, which includes cuda.h in its internal-versioning mode.
struct SimCalls {
  CUresult (*launch_host_func)(CUstream, CUhostFn, void*) = nullptr;
  CUresult (*stream_create)(CUstream*, unsigned int) = nullptr;
  CUresult (*stream_synchronize)(CUstream) = nullptr;
  CUresult (*stream_destroy)(CUstream) = nullptr;
  CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*context_push)(CUcontext) = nullptr;
  CUresult (*context_pop)(CUcontext*) = nullptr;
  CUresult (*context_get_current)(CUcontext*) = nullptr;
  CUresult (*context_synchronize)() = nullptr;
  CUresult (*primary_context_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*graph_add_host_node)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                  const CUDA_HOST_NODE_PARAMS*) = nullptr;
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
  CUresult (*begin_capture)(CUstream, CUstreamCaptureMode) = nullptr;
  CUresult (*end_capture)(CUstream, CUgraph*) = nullptr;
};

class FakeCupti {
 public:
  // One at a time: the injected driver's functions find the live fake through a global.
  FakeCupti(const SimCalls& sim, bool honour_rewrites);
  ~FakeCupti();
  FakeCupti(const FakeCupti&) = delete;
  FakeCupti& operator=(const FakeCupti&) = delete;

  void attach(inject::InjectHandler* handler) { handler_ = handler; }
  // Entry points for the handler's own calls, routed through this fake.
  inject::InjectedDriver injected_driver() const;

  // The application's calls.
  CUresult launch_host_func(CUstream stream, CUhostFn function, void* user_data);
  CUresult launch_host_func_per_thread(CUstream stream, CUhostFn function, void* user_data);
  CUresult stream_synchronize(CUstream stream);
  CUresult stream_destroy(CUstream stream);
  // The handler is told of a successful cuStreamDestroy of `stream`, which the simulated driver
  // keeps: as if the application's next cuStreamCreate returned the same handle again.
  void act_out_stream_destroy(CUstream stream);
  CUresult context_synchronize();
  CUresult primary_context_retain(CUcontext* context, CUdevice device);
  CUresult mem_alloc(CUdeviceptr* pointer, size_t bytes);
  CUresult mem_free(CUdeviceptr pointer);
  CUresult graph_add_host_node(CUgraphNode* node, CUgraph graph, const CUDA_HOST_NODE_PARAMS* params);
  CUresult begin_capture(CUstream stream, CUstreamCaptureMode mode);
  CUresult end_capture(CUstream stream, CUgraph* graph);
  // A CUDA runtime call (CUPTI's runtime-API domain, `callback_id` a CUpti_runtime_api_trace_cbid,
  // `symbol` as CUPTI names it, e.g. "cudaMalloc_v3020"): its entry callback, then `body` (which may
  // make driver calls through this fake, as the runtime does), then its exit callback with the
  // cudaError_t `body` returns.
  int runtime_call(std::uint32_t callback_id, const char* symbol, const std::function<int()>& body);

  const SimCalls& sim() const { return sim_; }
  bool honour_rewrites() const { return honour_rewrites_; }
  inject::InjectHandler* handler() const { return handler_; }

 private:
  SimCalls sim_;
  bool honour_rewrites_;
  inject::InjectHandler* handler_ = nullptr;
};

}  // namespace gilsan::checkers::testing
