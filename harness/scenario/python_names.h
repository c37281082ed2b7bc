// Python names as scenario headers write them: exception types and importable module names.
#pragma once

#include <string_view>

namespace gilsan {

// "ValueError", "cuda.core", "pkg.errors.Bad": ASCII dotted identifiers. Non-ASCII identifiers are
// legal in Python but not accepted here, which keeps header errors easy to read.
inline bool is_dotted_python_name(std::string_view text) {
  auto starts = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto continues = [&](char c) { return starts(c) || (c >= '0' && c <= '9'); };
  bool at_start = true;
  for (char c : text) {
    if (c == '.') {
      if (at_start) return false;
      at_start = true;
    } else if (at_start ? starts(c) : continues(c)) {
      at_start = false;
    } else {
      return false;
    }
  }
  return !at_start;
}

}  // namespace gilsan
