#include "checkers/sources/entry_point_names.h"

#include <cctype>

namespace gilsan::checkers {
namespace {

// Removes one "_vN" suffix (N one or more digits); returns whether it did.
bool strip_version(std::string_view& name) {
  std::size_t digits = 0;
  while (digits < name.size() &&
         std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits]))) {
    ++digits;
  }
  if (digits == 0 || name.size() < digits + 2) return false;
  if (name.substr(name.size() - digits - 2, 2) != "_v") return false;
  name.remove_suffix(digits + 2);
  return true;
}

bool strip(std::string_view& name, std::string_view suffix) {
  if (!name.ends_with(suffix)) return false;
  name.remove_suffix(suffix.size());
  return true;
}

}  // namespace

EntryPointName split_entry_point_name(std::string_view symbol) {
  EntryPointName result{symbol, false};
  for (bool stripped = true; stripped;) {
    stripped = false;
    if (strip(result.base, "_ptsz") || strip(result.base, "_ptds")) {
      result.per_thread = true;
      stripped = true;
    }
    if (strip_version(result.base)) stripped = true;
  }
  return result;
}

}  // namespace gilsan::checkers
