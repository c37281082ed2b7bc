#include "harness/pymodule/stream_payload_registry.h"

#include <mutex>
#include <unordered_set>
#include <vector>

#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/observation.h"

namespace gilsan::pymodule {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_set<HostPayload*> payloads;
};

// Never destroyed: trampolines claim payloads while the process exits.
Registry& registry() {
  static Registry* const instance = new Registry();
  return *instance;
}

}  // namespace

void register_stream_payload(HostPayload* payload) {
  std::lock_guard lock(registry().mutex);
  registry().payloads.insert(payload);
}

bool claim_stream_payload(HostPayload* payload) {
  std::lock_guard lock(registry().mutex);
  return registry().payloads.erase(payload) == 1;
}

std::size_t abandon_stream_payloads(CUcontext context) {
  std::vector<HostPayload*> abandoned;
  {
    std::lock_guard lock(registry().mutex);
    for (auto it = registry().payloads.begin(); it != registry().payloads.end();) {
      if ((*it)->context == context) {
        abandoned.push_back(*it);
        it = registry().payloads.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (HostPayload* payload : abandoned) {
    observe_host_function_dropped(payload);
    drop_python_references(payload);
    stats().host_functions_abandoned.fetch_add(1);
    host_function_finished();
  }
  return abandoned.size();
}

bool is_sticky_error(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

}  // namespace gilsan::pymodule
