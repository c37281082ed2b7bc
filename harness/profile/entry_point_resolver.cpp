#include "harness/profile/entry_point_resolver.h"

#include <utility>

namespace gilsan {

EntryPointResolver::EntryPointResolver(Lookup lookup) : lookup_(std::move(lookup)) {}

std::string EntryPointResolver::missing_list() const {
  std::string list;
  for (const std::string& name : missing_) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace gilsan
