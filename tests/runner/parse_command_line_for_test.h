// What the command-line tests call: the parse itself, and the one-line usage error a parse throws
// ("" when it parsed).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/command/command_line.h"

namespace gilsan {

inline Command parse(std::vector<std::string_view> arguments) { return parse_command_line(arguments); }

inline std::string usage_error(std::vector<std::string_view> arguments) {
  try {
    parse(arguments);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace gilsan
