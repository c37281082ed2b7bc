#include "checkers/core/handles.h"

#include <cstdio>

namespace gilsan::checkers {

std::shared_ptr<const Stack> shared_stack(Stack stack) {
  // Never destroyed: a driver thread may still keep a stack while the process exits.
  static const auto* const kEmpty = new std::shared_ptr<const Stack>(std::make_shared<const Stack>());
  return stack.empty() ? *kEmpty : std::make_shared<const Stack>(std::move(stack));
}

std::string_view to_string(HostFunctionKind kind) {
  switch (kind) {
    case HostFunctionKind::python:
      return "python";
    case HostFunctionKind::ctypes:
      return "ctypes";
    case HostFunctionKind::native:
      return "native";
  }
  return "native";
}

std::string hex(std::uint64_t value) {
  char text[2 + 16 + 1];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

void reset_keeping_buffers(HostFunction& host_function) {
  std::string implementation = std::move(host_function.implementation);
  std::string callable = std::move(host_function.callable);
  host_function = HostFunction{};
  implementation.clear();
  callable.clear();
  host_function.implementation = std::move(implementation);
  host_function.callable = std::move(callable);
}

}  // namespace gilsan::checkers
