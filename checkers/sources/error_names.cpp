#include "checkers/sources/error_names.h"

namespace gilsan::checkers {

ErrorNames::ErrorNames(const NameOf& name_of) : names_(kLargestCode + 1) {
  if (!name_of) return;
  for (int code = 0; code <= kLargestCode; ++code) {
    if (const char* name = name_of(code); name != nullptr) names_[static_cast<std::size_t>(code)] = name;
  }
}

std::string_view ErrorNames::name(int result) const {
  if (result < 0 || static_cast<std::size_t>(result) >= names_.size()) return {};
  return names_[static_cast<std::size_t>(result)];
}

}  // namespace gilsan::checkers
