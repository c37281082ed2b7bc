// `gilsan help COMMAND` and `gilsan COMMAND --help`: one command's part of `gilsan --help` (usage_text),
// cut out of that one text so the two can never disagree: its usage lines, what it does, the options
// its usage lines name, its examples, and the exit codes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gilsan {

// The help of `command` (run, suite, merge, explain, ...: any command `gilsan --help` has usage lines
// for), or nullopt when it has none.
std::optional<std::string> command_help(std::string_view command);

}  // namespace gilsan
