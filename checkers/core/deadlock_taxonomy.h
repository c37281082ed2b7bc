// The deadlock classes as one C++ type, made from the one table (deadlock_classes.inc). The sanitizer
// core names the cycles it predicts with it (deadlock_class.h), the watchdog the hangs it sees
// (harness/watchdog/classifier.h), so that a predicted cycle and the hang it would cause carry the
// same value, and there is one to_string and one parse for both.
//
// Header-only, standard library only: the watchdog, the runner and the reports include it without
// linking the sanitizer. The type lives in namespace gilsan because neither side owns it;
// gilsan::checkers::DeadlockClass and gilsan::watchdog::DeadlockClass are aliases of it.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gilsan {

enum class DeadlockClass {
#define GILSAN_DEADLOCK_CLASS(enumerator, name, predicted, description) enumerator,
#include "checkers/core/deadlock_classes.inc"
#undef GILSAN_DEADLOCK_CLASS
};

struct DeadlockClassInfo {
  DeadlockClass value;
  std::string_view name;         // "gil-driver-inversion"
  bool predicted_by_core;        // false: only a hang the watchdog saw can have this class
  std::string_view description;  // one line
};

namespace deadlock_taxonomy_detail {
enum class Predicted { no, yes };
}  // namespace deadlock_taxonomy_detail

// Every class, in the table's order.
inline constexpr std::array kDeadlockClasses = {
#define GILSAN_DEADLOCK_CLASS(enumerator, name, predicted, description)                            \
  DeadlockClassInfo{DeadlockClass::enumerator, name,                                               \
                    deadlock_taxonomy_detail::Predicted::predicted == deadlock_taxonomy_detail::Predicted::yes, \
                    description},
#include "checkers/core/deadlock_classes.inc"
#undef GILSAN_DEADLOCK_CLASS
};

// The table's row of a class (every value of the enum has one).
constexpr const DeadlockClassInfo& deadlock_class_info(DeadlockClass value) {
  return kDeadlockClasses[static_cast<std::size_t>(value)];
}

// "gil-driver-inversion"; the name reports, JSON and `expect: deadlock:CLASS` use.
constexpr std::string_view to_string(DeadlockClass value) { return deadlock_class_info(value).name; }

// The class a name stands for, e.g. from a scenario's `expect: deadlock:CLASS`; nullopt for a name
// that is not in the table (names are exact: no case folding, no underscores for dashes).
constexpr std::optional<DeadlockClass> parse_deadlock_class(std::string_view name) {
  for (const DeadlockClassInfo& row : kDeadlockClasses) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

// The enumerators are 0, 1, 2... in the table's order, so deadlock_class_info() can index the table.
static_assert([] {
  for (std::size_t i = 0; i < kDeadlockClasses.size(); ++i) {
    if (static_cast<std::size_t>(kDeadlockClasses[i].value) != i) return false;
  }
  return true;
}());

}  // namespace gilsan
