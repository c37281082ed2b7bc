#include "harness/pymodule/host_trampolines.h"

#include "harness/pymodule/callback_thread_state.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/observation.h"
#include "harness/pymodule/stream_payload_registry.h"

namespace gilsan::pymodule {

void CUDA_CB stream_python_trampoline(void* data) {
  auto* payload = static_cast<HostPayload*>(data);
  if (!claim_stream_payload(payload)) {
    // A sticky-error sweep abandoned it and already dropped its references.
    free_payload_memory(payload);
    return;
  }
  observe_host_function_begin(payload);
  // Checked before taking the GIL: once finalization began, taking it is itself the hazard.
  if (!try_enter_python()) {
    stats().host_functions_skipped.fetch_add(1);
    observe_host_function_skipped();
    observe_host_function_end();
    observe_payload_released(payload);
    leak_payload(payload);
    host_function_finished();
    return;
  }
  observe_gil_waiting();
  {
    const CallbackPython python;
    observe_gil_held();
    call_payload(payload);
    drop_python_references(payload);
  }
  observe_gil_released();
  leave_python();
  observe_host_function_end();
  // The release ends this one run, so it is said after the run's end; the memory goes only after
  // that, since the release reads the payload.
  observe_payload_released(payload);
  free_payload_memory(payload);
  host_function_finished();
}

void CUDA_CB graph_python_trampoline(void* data) {
  auto* payload = static_cast<HostPayload*>(data);
  observe_graph_host_function_begin(payload);
  if (!try_enter_python()) {
    stats().host_functions_skipped.fetch_add(1);
    observe_host_function_skipped();
    observe_host_function_end();
    graph_host_run_finished();
    return;
  }
  observe_gil_waiting();
  {
    const CallbackPython python;
    observe_gil_held();
    call_payload(payload);
  }
  observe_gil_released();
  leave_python();
  observe_host_function_end();
  graph_host_run_finished();
}

void CUDA_CB native_release_marker(void* data) {
  auto* payload = static_cast<HostPayload*>(data);
  if (!claim_stream_payload(payload)) {
    free_payload_memory(payload);
    return;
  }
  release_later(payload);
  host_function_finished();
}

void CUDA_CB user_object_destructor(void* data) {
  auto* payload = static_cast<HostPayload*>(data);
  observe_graph_payload_released(payload);  // before release_later, which may free it
  release_later(payload);
}

}  // namespace gilsan::pymodule
