// What each option value of run, suite and merge must be: every function turns one value into the
// setting it means, or throws UsageError with the one line `gilsan` prints (command_line.h). They are
// called as the option table (command_line.cpp) meets each option, before anything runs, so a bad
// value never costs a suite's minutes.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/command/command_line.h"

namespace gilsan {

std::string checked_driver(const std::string& value);                  // auto, real or sim
double checked_timeout(const std::string& value);                     // positive seconds
std::chrono::milliseconds checked_quiet(const std::string& value);    // 1 to 3600000 ms
std::size_t checked_max_rss(const std::string& value);                 // 512M, 2G
bool checked_sanitize(const std::string& value);                      // on or off
bool checked_on_off(const std::string& option, const std::string& value);  // on or off, else names the option
ReportFormat checked_report(const std::string& value);                // text, full or json
unsigned checked_jobs(const std::string& value);                      // 1 to 256
std::pair<unsigned, unsigned> checked_shard(const std::string& value);  // i/n, 1 <= i <= n

// Parsed here, in the parent: a bad profile is one line before anything runs, not an error in every
// child. Returns the profile's absolute path, which every child can open wherever it runs.
std::string checked_profile(const std::string& value);

// An output file, proven writable now (output_path.h); `option` names it in the error.
std::string checked_output(std::string_view option, const std::string& value);

// --sarif-root: an existing folder, returned absolute and normalized (sarif_report.h).
std::string checked_sarif_root(const std::string& value);

// A built-in implementation or an adapter of one's own (package.module:Class); and a comma list of them.
std::string checked_implementation(const std::string& name);
std::vector<std::string> checked_implementations(const std::string& value);

// --under 'TOOL ARGS' (under_command.h) and --python-env VENV (python_environment.h).
std::vector<std::string> checked_under(const std::string& value);
PythonEnvironment checked_python_env(const std::string& value);

}  // namespace gilsan
