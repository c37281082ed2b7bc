#include "harness/command/command_line_values.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "harness/command/output_path.h"
#include "harness/profile/driver_profile.h"
#include "harness/runner/resident_memory.h"
#include "harness/runner/under_command.h"
#include "harness/scenario/conformance_vocabulary.h"
#include "harness/scenario/python_environment.h"

namespace gilsan {
namespace {

// Whether all of `text` (not only its start, as std::from_chars allows) reads as a T.
template <typename T>
bool parses_whole(std::string_view text, T& number) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string checked_driver(const std::string& value) {
  if (value != "auto" && value != "real" && value != "sim")
    throw UsageError("--driver must be auto, real or sim, not '" + value + "'");
  return value;
}

double checked_timeout(const std::string& value) {
  double seconds = 0;
  if (!parses_whole(value, seconds) || !std::isfinite(seconds) || seconds <= 0)
    throw UsageError("--timeout must be a positive number of seconds, not '" + value + "'");
  return seconds;
}

std::chrono::milliseconds checked_quiet(const std::string& value) {
  long long milliseconds = 0;
  if (!parses_whole(value, milliseconds) || milliseconds <= 0 || milliseconds > 3'600'000)
    throw UsageError("--quiet-ms must be a whole number of milliseconds from 1 to 3600000, not '" + value + "'");
  return std::chrono::milliseconds(milliseconds);
}

std::size_t checked_max_rss(const std::string& value) {
  const std::optional<std::size_t> bytes = parse_byte_size(value);
  if (!bytes) throw UsageError("--max-rss must be a size such as 512M or 2G (K, M, G: KiB, MiB, GiB), not '" + value + "'");
  return *bytes;
}

bool checked_sanitize(const std::string& value) { return checked_on_off("--sanitize", value); }

bool checked_on_off(const std::string& option, const std::string& value) {
  if (value != "on" && value != "off") throw UsageError(option + " must be on or off, not '" + value + "'");
  return value == "on";
}

ReportFormat checked_report(const std::string& value) {
  if (value != "text" && value != "full" && value != "json")
    throw UsageError("--report must be text, full or json, not '" + value + "'");
  return value == "json" ? ReportFormat::Json : value == "full" ? ReportFormat::Full : ReportFormat::Text;
}

unsigned checked_jobs(const std::string& value) {
  unsigned jobs = 0;
  if (!parses_whole(value, jobs) || jobs < 1 || jobs > 256)
    throw UsageError("--jobs must be a whole number from 1 to 256, not '" + value + "'");
  return jobs;
}

std::pair<unsigned, unsigned> checked_shard(const std::string& value) {
  const auto slash = value.find('/');
  unsigned index = 0, count = 0;
  const bool ok = slash != std::string::npos && parses_whole(std::string_view(value).substr(0, slash), index) &&
                  parses_whole(std::string_view(value).substr(slash + 1), count) && count >= 1 && index >= 1 &&
                  index <= count;
  if (!ok) throw UsageError("--shard must be i/n with 1 <= i <= n (e.g. 2/4), not '" + value + "'");
  return {index, count};
}

std::string checked_profile(const std::string& value) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(value, error)) throw UsageError("--profile " + value + ": no such file");
  try {
    load_driver_profile(value);
  } catch (const std::exception& bad) {
    throw UsageError("--profile " + std::string(bad.what()));
  }
  return std::filesystem::absolute(value, error).string();
}

std::string checked_output(std::string_view option, const std::string& value) {
  if (const std::optional<std::string> why = why_unwritable(value)) throw UsageError(std::string(option) + " " + value + ": " + *why);
  return value;
}

std::string checked_sarif_root(const std::string& value) {
  std::error_code error;
  if (value.empty() || !std::filesystem::is_directory(value, error))
    throw UsageError("--sarif-root " + value + ": not a folder (SARIF's URIs are made relative to it)");
  return std::filesystem::absolute(value, error).lexically_normal().string();
}

std::string checked_implementation(const std::string& name) {
  if (!is_implementation_name(name)) {
    std::string builtin;
    for (std::string_view known : kBuiltinImplementations) builtin += (builtin.empty() ? "" : ", ") + std::string(known);
    throw UsageError("--impl: unknown implementation '" + name + "' (" + builtin + ", or package.module:Class)");
  }
  return name;
}

std::vector<std::string> checked_implementations(const std::string& value) {
  std::vector<std::string> names;
  std::string_view rest = value;
  while (true) {
    const auto comma = rest.find(',');
    const std::string name(rest.substr(0, comma));
    if (name.empty()) throw UsageError("--impl takes a comma list of names, not '" + value + "'");
    names.push_back(checked_implementation(name));
    if (comma == std::string_view::npos) return names;
    rest.remove_prefix(comma + 1);
  }
}

std::vector<std::string> checked_under(const std::string& value) {
  try {
    return parse_under_command(value);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

PythonEnvironment checked_python_env(const std::string& value) {
  try {
    return virtualenv_python_environment(value);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

}  // namespace gilsan
