// The sanitizer's checkers. Each name is used in reports, in suppression files (`NAME:pattern`), in
// GILSAN_OPTIONS (the name with '_' for '-', e.g. gil_held_blocking_call=0) and in scenarios'
// `expect: report:NAME`.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gilsan::checkers {

enum class Checker {
  lock_order_cycle,
  cuda_call_in_host_function,
  gil_held_blocking_call,
  unraisable_in_host_function,
  host_function_after_finalization,
  host_function_lifetime,
};

inline constexpr std::array<Checker, 6> kAllCheckers = {
    Checker::lock_order_cycle,
    Checker::cuda_call_in_host_function,
    Checker::gil_held_blocking_call,
    Checker::unraisable_in_host_function,
    Checker::host_function_after_finalization,
    Checker::host_function_lifetime,
};

std::string_view to_string(Checker checker);  // "lock-order-cycle", ...
std::optional<Checker> checker_named(std::string_view name);
std::string option_key(Checker checker);  // "lock_order_cycle", ...
std::string all_checker_names();          // "lock-order-cycle, cuda-call-in-host-function, ..."

}  // namespace gilsan::checkers
