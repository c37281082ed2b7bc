// Where in a driver profile's text a key is, for errors that name the file and line
// (DriverProfileError "FILE:LINE: message"). The JSON library reports byte offsets; people want lines.
// A key is found by its path: each part of the section ("eager_call_overrides.while_host_function_runs";
// "" or "profile" for the top level) as a key one level deeper than the last, then the key itself. The
// depth matters because the same table names recur (eager_call_overrides holds tables named like the
// top-level ones, and it sorts first).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace gilsan {

class ProfileSourceText {
 public:
  ProfileSourceText(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  [[noreturn]] void fail_at_offset(std::size_t offset, const std::string& message) const;
  [[noreturn]] void fail_at_key(std::string_view section, std::string_view key, const std::string& message) const;

 private:
  // The first `"name"` at or after `from` at brace depth `depth`, else its first occurrence at all
  // (a value in a list, or a layout this reader did not write).
  std::size_t find_key(std::string_view name, std::size_t from, int depth) const;
  // How many objects are open at `offset` (braces inside strings do not count).
  int depth_at(std::size_t offset) const;

  std::string_view text_;
  std::string source_;
};

}  // namespace gilsan
