#include "harness/scenario/scenario_header.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/scenario/conformance_vocabulary.h"
#include "harness/scenario/python_names.h"
#include "harness/text/printable.h"

namespace gilsan {
namespace {

constexpr std::string_view kKnownKeys[] = {"expect",       "drivers",         "timeout",         "needs",
                                           "description",  "suppressions",    "implementations", "capabilities",
                                           "module_loading"};
// `expect.IMPL = OUTCOME` overrides `expect` for one implementation.
constexpr std::string_view kExpectFor = "expect.";
constexpr double kLongestTimeoutSeconds = 24 * 60 * 60;
// A header value goes into every report, matrix and JUnit file: a line, not a document.
constexpr std::size_t kLongestValue = 4096;

template <std::size_t N>
std::string joined(const std::string_view (&names)[N]) {
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}
std::string builtin_implementations() { return joined(kBuiltinImplementations); }
std::string capabilities() { return joined(kCapabilities); }

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// For "# gilsan: key = value" returns "key = value"; nullopt for any other line.
std::optional<std::string_view> gilsan_entry(std::string_view line) {
  std::string_view rest = trimmed(line);
  if (!rest.starts_with('#')) return std::nullopt;
  rest = trimmed(rest.substr(1));
  if (!rest.starts_with("gilsan:")) return std::nullopt;
  return trimmed(rest.substr(std::string_view("gilsan:").size()));
}

// "# gilsan timeout = 10": meant as an entry, but without the colon it would be an ordinary comment,
// and the setting silently not applied.
bool entry_without_colon(std::string_view line) {
  std::string_view rest = trimmed(line);
  if (!rest.starts_with('#')) return false;
  rest = trimmed(rest.substr(1));
  if (!rest.starts_with("gilsan") || rest.starts_with("gilsan:")) return false;
  rest.remove_prefix(std::string_view("gilsan").size());
  return !rest.empty() && (rest.front() == ' ' || rest.front() == '\t') && rest.find('=') != std::string_view::npos;
}

// Splits "a, b,c" into trimmed items; an empty item or a repeated one is an error.
std::vector<std::string> comma_list(std::string_view value, std::string_view key) {
  std::vector<std::string> items;
  while (true) {
    const auto comma = value.find(',');
    const std::string item(trimmed(value.substr(0, comma)));
    if (item.empty()) throw std::invalid_argument("empty item in the list of '" + std::string(key) + "'");
    if (std::find(items.begin(), items.end(), item) != items.end())
      throw std::invalid_argument("'" + item + "' is listed twice in '" + std::string(key) + "'");
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    value.remove_prefix(comma + 1);
  }
}

double parse_timeout(std::string_view value) {
  double seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds))
    throw std::invalid_argument("timeout must be a number of seconds, e.g. 20 or 2.5, not '" +
                                std::string(value) + "'");
  if (seconds <= 0 || seconds > kLongestTimeoutSeconds)
    throw std::invalid_argument("timeout must be above 0 and at most 86400 seconds, not '" +
                                std::string(value) + "'");
  return seconds;
}

void apply(ScenarioHeader& header, std::string_view key, std::string_view value) {
  if (key == "expect") {
    header.expect = parse_expectation(value);
  } else if (key == "drivers") {
    header.drivers = comma_list(value, key);
    for (const std::string& driver : header.drivers)
      if (driver != "sim" && driver != "real")
        throw std::invalid_argument("unknown driver '" + driver + "' in 'drivers' (sim, real)");
  } else if (key == "timeout") {
    header.timeout_seconds = parse_timeout(value);
  } else if (key == "needs") {
    header.needs = comma_list(value, key);
    for (const std::string& need : header.needs)
      if (need != kNeedTwoDevices && !is_dotted_python_name(need))
        throw std::invalid_argument("unknown need '" + need +
                                    "' (a Python module such as cupy or cuda.core, or two-devices)");
  } else if (key == "suppressions") {
    header.suppressions = std::string(value);
  } else if (key == "implementations") {
    header.implementations = comma_list(value, key);
    for (const std::string& name : header.implementations)
      if (name != "any" && !is_implementation_name(name))
        throw std::invalid_argument("unknown implementation '" + name + "' (any, " + builtin_implementations() +
                                    ", or package.module:Class)");
  } else if (key == "capabilities") {
    header.capabilities = comma_list(value, key);
    for (const std::string& name : header.capabilities)
      if (!is_capability(name))
        throw std::invalid_argument("unknown capability '" + name + "' (one of: " + capabilities() + ")");
  } else if (key == "module_loading") {
    header.module_loading = module_loading_named(value);
    if (!header.module_loading)
      throw std::invalid_argument("module_loading must be eager or lazy (the child's CUDA_MODULE_LOADING), not '" +
                                  std::string(value) + "'");
  } else if (key.starts_with(kExpectFor)) {
    const std::string implementation(key.substr(kExpectFor.size()));
    if (!is_implementation_name(implementation))
      throw std::invalid_argument("'" + std::string(key) + "' names no implementation (expect.IMPL, IMPL one of " +
                                  builtin_implementations() + ", or package.module:Class)");
    header.expect_by_implementation[implementation] = parse_expectation(value);
  } else {
    header.description = std::string(value);
  }
}

std::string known_keys() {
  std::string text;
  for (std::string_view key : kKnownKeys) text += (text.empty() ? "" : ", ") + std::string(key);
  return text + ", expect.IMPL";
}

}  // namespace

bool ScenarioHeader::allows_driver(std::string_view driver) const {
  return std::find(drivers.begin(), drivers.end(), driver) != drivers.end();
}

bool ScenarioHeader::allows_implementation(std::string_view implementation) const {
  return std::find(implementations.begin(), implementations.end(), "any") != implementations.end() ||
         std::find(implementations.begin(), implementations.end(), implementation) != implementations.end();
}

const Outcome& ScenarioHeader::expect_for(std::string_view implementation) const {
  const auto found = expect_by_implementation.find(implementation);
  return found != expect_by_implementation.end() ? found->second : expect;
}

ScenarioInputError::ScenarioInputError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(printable(file + ":" + (line > 0 ? std::to_string(line) + ":" : "") + " " + message)),
      file_(file),
      line_(line) {}

ScenarioHeader parse_scenario_header(std::string_view text, const std::string& file_name) {
  if (text.empty())
    throw ScenarioInputError(file_name, 0, "the file is empty (a scenario starts with '# gilsan: expect = ...')");
  // Python refuses source with a NUL byte; say what the file is rather than what its header lacks.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw ScenarioInputError(file_name, static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n')) + 1,
                             "a NUL byte: not a Python source file");
  ScenarioHeader header;
  std::map<std::string, int, std::less<>> first_line_of_key;
  int first_code_line = 0;
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);

    const std::optional<std::string_view> entry = gilsan_entry(line);
    if (first_code_line == 0 && !entry && entry_without_colon(line))
      throw ScenarioInputError(file_name, line_number, "a header line needs a colon after 'gilsan': '# gilsan: key = value'");
    if (first_code_line == 0 && !entry) {
      const std::string_view content = trimmed(line);
      if (!content.empty() && !content.starts_with('#')) first_code_line = line_number;
      continue;
    }
    if (!entry) continue;
    if (first_code_line != 0)
      throw ScenarioInputError(file_name, line_number,
                               "'# gilsan:' line after the header, which ended at line " +
                                   std::to_string(first_code_line) + " (the first line of code)");

    const auto equals = entry->find('=');
    if (equals == std::string_view::npos)
      throw ScenarioInputError(file_name, line_number, "expected '# gilsan: key = value'");
    const std::string_view key = trimmed(entry->substr(0, equals));
    const std::string_view value = trimmed(entry->substr(equals + 1));
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) == std::end(kKnownKeys) &&
        !key.starts_with(kExpectFor))
      throw ScenarioInputError(file_name, line_number,
                               "unknown key '" + std::string(key) + "' (known keys: " + known_keys() + ")");
    if (auto previous = first_line_of_key.find(key); previous != first_line_of_key.end())
      throw ScenarioInputError(file_name, line_number,
                               "duplicate key '" + std::string(key) + "' (first set on line " +
                                   std::to_string(previous->second) + ")");
    first_line_of_key.emplace(std::string(key), line_number);
    if (value.empty())
      throw ScenarioInputError(file_name, line_number, "empty value for '" + std::string(key) + "'");
    if (value.size() > kLongestValue)
      throw ScenarioInputError(file_name, line_number,
                               "the value of '" + std::string(key) + "' is " + std::to_string(value.size()) +
                                   " characters long; a header value has at most " + std::to_string(kLongestValue));
    try {
      apply(header, key, value);
    } catch (const std::invalid_argument& error) {
      throw ScenarioInputError(file_name, line_number, error.what());
    }
  }
  if (!header.expect_by_implementation.empty() && !header.is_conformance())
    throw ScenarioInputError(file_name, first_line_of_key.lower_bound("expect.")->second,
                             "'expect.IMPL' needs '# gilsan: implementations = ...' (a conformance scenario)");
  if (!header.capabilities.empty() && !header.is_conformance())
    throw ScenarioInputError(file_name, first_line_of_key.at("capabilities"),
                             "'capabilities' needs '# gilsan: implementations = ...' (a conformance scenario)");
  if (!first_line_of_key.contains("expect"))
    throw ScenarioInputError(file_name, 1,
                             "missing '# gilsan: expect = ...' line (every scenario states its expected outcome)");
  return header;
}

ScenarioHeader read_scenario_header(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error))
    throw ScenarioInputError(file.string(), 0,
                             std::filesystem::exists(file, error) ? "not a regular file" : "no such file");
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw ScenarioInputError(file.string(), 0, "cannot open the scenario file");
  std::ostringstream contents;
  contents << stream.rdbuf();
  if (stream.bad()) throw ScenarioInputError(file.string(), 0, "cannot read the scenario file");
  return parse_scenario_header(contents.str(), file.string());
}

}  // namespace gilsan
