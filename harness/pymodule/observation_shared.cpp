#include "harness/pymodule/observation_shared.h"

#include <dlfcn.h>

#include "harness/pymodule/python_stack.h"

namespace gilsan::pymodule {

const char kGraphHostFunctionTag = 0;

const GilsanSanitizerHooks* sanitizer() {
  static const GilsanSanitizerHooks* const hooks = [] {
    auto lookup = reinterpret_cast<GilsanSanitizerHooksFunction>(::dlsym(RTLD_DEFAULT, GILSAN_SANITIZER_HOOKS_SYMBOL));
    const GilsanSanitizerHooks* found = lookup != nullptr ? lookup() : nullptr;
    if (found == nullptr || found->abi_version != GILSAN_SANITIZER_HOOKS_ABI) return static_cast<const GilsanSanitizerHooks*>(nullptr);
    found->set_python_stack(&write_python_stack);
    return found;
  }();
  return hooks;
}

GilsanSanitizerHostFunction sanitizer_host_function(const HostPayload* payload, std::uint64_t id, CUstream stream,
                                                    CUcontext context, bool stream_known) {
  GilsanSanitizerHostFunction host_function{};
  host_function.id = id;
  host_function.python = payload == nullptr || payload->kind == HostPayload::Kind::PythonCall ? 1 : 0;
  host_function.description = payload != nullptr && payload->description[0] != '\0' ? payload->description : nullptr;
  host_function.context = as_id(context);
  host_function.stream = as_id(stream);
  host_function.stream_known = stream_known ? 1 : 0;
  host_function.user_data = as_id(payload);
  return host_function;
}

GilsanSanitizerHostFunction graph_node_record(const HostPayload* payload) {
  GilsanSanitizerHostFunction host_function{};
  host_function.id = payload->serial;
  host_function.python = 1;
  host_function.description = payload->description[0] != '\0' ? payload->description : nullptr;
  host_function.stream_known = 0;
  host_function.user_data = as_id(payload);
  return host_function;
}

board::HostFunctionInfo info_of(const HostPayload* payload, std::uint64_t id, CUstream stream, CUcontext context) {
  board::HostFunctionInfo info;
  info.id = id;
  info.context = as_id(context);
  info.stream = as_id(stream);
  info.kind = payload != nullptr && payload->kind == HostPayload::Kind::PythonCall ? board::HostFunctionKind::Python
                                                                                   : board::HostFunctionKind::Native;
  info.implementation = kImplementation;
  info.description = payload != nullptr && payload->description[0] != '\0' ? payload->description : nullptr;
  return info;
}

}  // namespace gilsan::pymodule
