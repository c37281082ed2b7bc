// The sanitizer's checkers. Each name is used in reports, in suppression files (`NAME:pattern`), in
// GILSAN_OPTIONS (the name with '_' for '-', e.g. gil_held_blocking_call=0) and in scenarios'
// `expect: report:NAME`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gilsan::checkers {

enum class Checker {
#define GILSAN_CHECKER(enumerator, name, summary) enumerator,
#include "checkers/core/checkers.inc"
#undef GILSAN_CHECKER
};

inline constexpr Checker kAllCheckers[] = {
#define GILSAN_CHECKER(enumerator, name, summary) Checker::enumerator,
#include "checkers/core/checkers.inc"
#undef GILSAN_CHECKER
};

std::string_view to_string(Checker checker);  // "lock-order-cycle", ...
std::optional<Checker> checker_named(std::string_view name);
std::string option_key(Checker checker);  // "lock_order_cycle", ...
std::string all_checker_names();          // "lock-order-cycle, cuda-call-in-host-function, ..."

}  // namespace gilsan::checkers
