#include "harness/symbols/module_owner.h"

#include <cctype>

namespace gilsan::symbols {

bool is_python_executable(std::string_view name) {
  if (!name.starts_with("python")) return false;
  std::size_t at = 6;
  while (at < name.size() && (std::isdigit(static_cast<unsigned char>(name[at])) != 0 || name[at] == '.')) ++at;
  return at == name.size() || (at + 1 == name.size() && std::isalpha(static_cast<unsigned char>(name[at])) != 0);
}

std::string owner_of_module(std::string_view module) {
  const std::string_view name = module.substr(module.find_last_of('/') + 1);
  if (name.starts_with("libcuda.so") || name.starts_with("libgilsan_simcuda") || name.starts_with("libgilsan_cudashim"))
    return "the driver";
  if (name.starts_with("libpython") || is_python_executable(name)) return "the interpreter";
  return {};
}

}  // namespace gilsan::symbols
