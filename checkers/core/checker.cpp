#include "checkers/core/checker.h"

#include <algorithm>

namespace gilsan::checkers {

std::string_view to_string(Checker checker) {
  switch (checker) {
#define GILSAN_CHECKER(enumerator, name, summary) \
  case Checker::enumerator:                        \
    return name;
#include "checkers/core/checkers.inc"
#undef GILSAN_CHECKER
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
