// The one translation unit that includes generated_cuda_meta.h: its structs use cuda.h's versioned
// types (CUdeviceptr_v1, ...), which cuda.h declares only under __CUDA_API_VERSION_INTERNAL.
#define __CUDA_API_VERSION_INTERNAL 1  // NOLINT(bugprone-reserved-identifier): cuda.h's own switch
#include <cuda.h>
#include <generated_cuda_meta.h>

#include "checkers/inject/call_params.h"

namespace gilsan::checkers::inject {

LaunchHostFuncArgs launch_host_func_args(void* params) {
  // cuLaunchHostFunc_ptsz_params has the same fields in the same order.
  auto* args = static_cast<cuLaunchHostFunc_params*>(params);
  return {&args->hStream, &args->fn, &args->userData};
}

CallHandles call_handles(const CallClass& call, void* params) {
  CallHandles handles;
  switch (call.kind) {
    case CallKind::launch_host_func:
      handles.stream = &static_cast<cuLaunchHostFunc_params*>(params)->hStream;
      break;
    case CallKind::stream_synchronize:
      handles.stream = &static_cast<cuStreamSynchronize_params*>(params)->hStream;
      break;
    case CallKind::stream_destroy:
      handles.stream = &static_cast<cuStreamDestroy_v2_params*>(params)->hStream;
      break;
    case CallKind::event_record: {
      // cuEventRecordWithFlags_params starts with the same two fields.
      auto* args = static_cast<cuEventRecord_params*>(params);
      handles.event = &args->hEvent;
      handles.stream = &args->hStream;
      break;
    }
    case CallKind::event_synchronize:
      handles.event = &static_cast<cuEventSynchronize_params*>(params)->hEvent;
      break;
    case CallKind::event_destroy:
      handles.event = &static_cast<cuEventDestroy_v2_params*>(params)->hEvent;
      break;
    case CallKind::context_synchronize:
      if (call.versioned) handles.context = &static_cast<cuCtxSynchronize_v2_params*>(params)->ctx;
      break;
    case CallKind::context_destroy:
      handles.context = &static_cast<cuCtxDestroy_v2_params*>(params)->ctx;
      break;
    case CallKind::context_made:
      // Every cuCtxCreate version and cuDevicePrimaryCtxRetain take the out-argument first.
      handles.made_context = &static_cast<cuDevicePrimaryCtxRetain_params*>(params)->pctx;
      break;
    default:
      break;
  }
  return handles;
}

HostNodeSlot host_node_slot(CallKind kind, void* params) {
  switch (kind) {
    case CallKind::graph_add_host_node:
      return {&static_cast<cuGraphAddHostNode_params*>(params)->nodeParams, nullptr};
    case CallKind::graph_host_node_set_params:
      return {&static_cast<cuGraphHostNodeSetParams_params*>(params)->nodeParams, nullptr};
    case CallKind::graph_exec_host_node_set_params:
      return {&static_cast<cuGraphExecHostNodeSetParams_params*>(params)->nodeParams, nullptr};
    case CallKind::graph_add_node:
      return {nullptr, &static_cast<cuGraphAddNode_params*>(params)->nodeParams};
    case CallKind::graph_add_node_v2:
      return {nullptr, &static_cast<cuGraphAddNode_v2_params*>(params)->nodeParams};
    case CallKind::graph_node_set_params:
      return {nullptr, &static_cast<cuGraphNodeSetParams_params*>(params)->nodeParams};
    case CallKind::graph_exec_node_set_params:
      return {nullptr, &static_cast<cuGraphExecNodeSetParams_params*>(params)->nodeParams};
    default:
      return {};
  }
}

bool is_graph_node_call(CallKind kind) {
  switch (kind) {
    case CallKind::graph_add_host_node:
    case CallKind::graph_host_node_set_params:
    case CallKind::graph_exec_host_node_set_params:
    case CallKind::graph_add_node:
    case CallKind::graph_add_node_v2:
    case CallKind::graph_node_set_params:
    case CallKind::graph_exec_node_set_params:
      return true;
    default:
      return false;
  }
}

}  // namespace gilsan::checkers::inject
