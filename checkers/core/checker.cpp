#include "checkers/core/checker.h"

#include <algorithm>

namespace gilsan::checkers {

std::string_view to_string(Checker checker) {
  switch (checker) {
    case Checker::lock_order_cycle:
      return "lock-order-cycle";
    case Checker::cuda_call_in_host_function:
      return "cuda-call-in-host-function";
    case Checker::gil_held_blocking_call:
      return "gil-held-blocking-call";
    case Checker::unraisable_in_host_function:
      return "unraisable-in-host-function";
    case Checker::host_function_after_finalization:
      return "host-function-after-finalization";
    case Checker::host_function_lifetime:
      return "host-function-lifetime";
  }
  return "lock-order-cycle";
}

std::optional<Checker> checker_named(std::string_view name) {
  for (Checker checker : kAllCheckers) {
    if (to_string(checker) == name) return checker;
  }
  return std::nullopt;
}

std::string option_key(Checker checker) {
  std::string key(to_string(checker));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

std::string all_checker_names() {
  std::string names;
  for (Checker checker : kAllCheckers) {
    if (!names.empty()) names += ", ";
    names += to_string(checker);
  }
  return names;
}

}  // namespace gilsan::checkers
