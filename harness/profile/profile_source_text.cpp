#include "harness/profile/profile_source_text.h"

#include <algorithm>

#include "harness/profile/driver_profile.h"
#include "harness/text/printable.h"

namespace gilsan {

void ProfileSourceText::fail_at_offset(std::size_t offset, const std::string& message) const {
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + std::min(offset, text_.size()), '\n'));
  throw DriverProfileError(printable(source_ + ":" + std::to_string(line) + ": " + message));
}

void ProfileSourceText::fail_at_key(std::string_view section, std::string_view key, const std::string& message) const {
  std::size_t from = 0;
  int depth = 1;
  if (!section.empty() && section != "profile") {
    for (std::size_t start = 0; start <= section.size();) {
      const std::size_t dot = std::min(section.find('.', start), section.size());
      const std::size_t at = find_key(section.substr(start, dot - start), from, depth);
      if (at == std::string_view::npos) break;
      from = at;
      ++depth;
      start = dot + 1;
    }
  }
  const std::size_t at = key.empty() ? from : find_key(key, from, depth);
  fail_at_offset(at == std::string_view::npos ? from : at, message);
}

std::size_t ProfileSourceText::find_key(std::string_view name, std::size_t from, int depth) const {
  const std::string quoted = "\"" + std::string(name) + "\"";
  for (std::size_t at = text_.find(quoted, from); at != std::string_view::npos; at = text_.find(quoted, at + 1)) {
    if (depth_at(at) == depth) return at;
  }
  return text_.find(quoted, from);
}

int ProfileSourceText::depth_at(std::size_t offset) const {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
    const char c = text_[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    }
  }
  return depth;
}

}  // namespace gilsan
