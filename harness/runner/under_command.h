// `--under 'TOOL ARGS'`: the scenario child runs under a tool (valgrind, strace, perf record), which
// the runner puts in front of the child's own command line. The tool is what gets spawned, so the
// child keeps its pid and process group, and the watchdog, the board and the report channel work as
// without it. Tools such as valgrind slow the child down many times, so the run's timeout and the
// watchdog's quiet period are scaled by kUnderTimeoutFactor (docs/runner.md).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan {

// Helgrind and DRD slow a threaded program down 50 times and more; 50 is also the sanitizer's own
// valgrind_timeout_scale(). (Twenty, the watchdog's factor when gilsan itself finds RUNNING_ON_VALGRIND,
// let a Helgrind'ed scenario child's slow simulated device work pass for a gpu-stall on a busy machine.)
inline constexpr unsigned kUnderTimeoutFactor = 50;

// Splits a command line into words the way a POSIX shell does for plain words, single quotes,
// double quotes and backslashes, and nothing more: no variables, globs or operators, and no shell is
// run. Throws std::invalid_argument on an unterminated quote or a trailing backslash.
std::vector<std::string> split_command_words(std::string_view text);

// Where execvp would find `program` (a name looked up on $PATH, or a path with a '/'), or nullopt.
std::optional<std::string> executable_path(const std::string& program);

// --under's value as the words to put in front of the child's command line, the first made the path
// of the program. Throws std::invalid_argument when it is empty or its program cannot be run.
std::vector<std::string> parse_under_command(std::string_view text);

}  // namespace gilsan
