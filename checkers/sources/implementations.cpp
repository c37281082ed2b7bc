#include "checkers/sources/implementations.h"

#include "checkers/core/suppressions.h"

namespace gilsan::checkers {
namespace {

bool matches(const ImplementationObject& row, std::string_view object_path) {
  if (object_path.empty()) return row.object_pattern == kAnonymousCode;
  // A pattern with a directory in it needs the path's directories; one without sees the base name.
  const bool whole_path = row.object_pattern.find('/') != std::string_view::npos;
  return glob_match(row.object_pattern, whole_path ? object_path : object_base_name(object_path));
}

}  // namespace

std::string_view object_base_name(std::string_view object_path) {
  const auto slash = object_path.rfind('/');
  return slash == std::string_view::npos ? object_path : object_path.substr(slash + 1);
}

ImplementationIdentity implementation_of_object(std::string_view object_path) {
  for (const ImplementationObject& row : kImplementationObjects) {
    if (matches(row, object_path)) return {std::string(row.implementation), row.kind};
  }
  return {std::string(object_base_name(object_path)), HostFunctionKind::native};
}

}  // namespace gilsan::checkers
