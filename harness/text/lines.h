// Text as lines, without copying: the reports and the help text are read line by line.
#pragma once

#include <string_view>
#include <vector>

namespace gilsan::text {

// The lines of `text`, without their '\n'; a last line without one counts, an empty text has none.
inline std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace gilsan::text
