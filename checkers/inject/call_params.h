// Typed views of the parameter structs CUPTI passes (generated_cuda_meta.h), for the calls the
// injection library reads or rewrites. generated_cuda_meta.h needs cuda.h's internal versioning
// types, which would change cuda.h's declarations for the whole translation unit, so only
// call_params.cpp includes it; everything else sees these pointers into the caller's struct.
#pragma once

#include <cuda.h>

#include "checkers/inject/call_classes.h"

namespace gilsan::checkers::inject {

// cuLaunchHostFunc(_ptsz): (hStream, fn, userData).
struct LaunchHostFuncArgs {
  CUstream* stream = nullptr;
  CUhostFn* function = nullptr;
  void** user_data = nullptr;
};
LaunchHostFuncArgs launch_host_func_args(void* params);

// The handles a call of `kind` names, read from its parameters; null where it names none.
struct CallHandles {
  const CUstream* stream = nullptr;
  const CUevent* event = nullptr;
  const CUcontext* context = nullptr;  // a context argument (cuCtxSynchronize_v2, cuCtxDestroy)
  CUcontext* const* made_context = nullptr;  // the CUcontext* out-argument of a context_made call
};
CallHandles call_handles(const CallClass& call, void* params);

// The field of a graph call's parameters that carries a host function; both null when the call
// has none.
struct HostNodeSlot {
  const CUDA_HOST_NODE_PARAMS** host = nullptr;  // a CUDA_HOST_NODE_PARAMS* argument
  CUgraphNodeParams** generic = nullptr;          // a CUgraphNodeParams* argument
};
HostNodeSlot host_node_slot(CallKind kind, void* params);
bool is_graph_node_call(CallKind kind);

}  // namespace gilsan::checkers::inject
