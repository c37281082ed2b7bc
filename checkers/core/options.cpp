#include "checkers/core/options.h"

#include <charconv>

namespace gilsan::checkers {
namespace {

std::string known_keys() {
  std::string keys = "halt_on_error, exitcode, report_path, suppressions, stats";
  for (Checker checker : kAllCheckers) keys += ", " + option_key(checker);
  return keys;
}

}  // namespace

Options parse_options(std::string_view text, const Options& defaults, std::string_view source) {
  Options options = defaults;
  int item_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    ++item_number;
    auto fail = [&](const std::string& message) {
      throw OptionsError(std::string(source) + ": item " + std::to_string(item_number) + " '" +
                         std::string(item) + "': " + message);
    };
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) fail("expected KEY=VALUE");
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    auto flag = [&]() {
      if (value != "0" && value != "1") fail("expected 0 or 1");
      return value == "1";
    };
    auto path = [&]() {
      if (value.empty()) fail("expected a path");
      return std::string(value);
    };
    if (key == "halt_on_error") {
      options.halt_on_error = flag();
    } else if (key == "exitcode") {
      int code = -1;
      const auto [end_of_number, error] =
          std::from_chars(value.data(), value.data() + value.size(), code);
      if (error != std::errc() || end_of_number != value.data() + value.size() || code < 0 ||
          code > 255) {
        fail("expected an exit code from 0 to 255");
      }
      options.exitcode = code;
    } else if (key == "report_path") {
      options.report_path = path();
    } else if (key == "suppressions") {
      options.suppressions = path();
    } else if (key == "stats") {
      options.stats = flag();
    } else {
      bool known = false;
      for (Checker checker : kAllCheckers) {
        if (key == option_key(checker)) {
          options.set_enabled(checker, flag());
          known = true;
        }
      }
      if (!known) fail("unknown option '" + std::string(key) + "' (known: " + known_keys() + ")");
    }
  }
  return options;
}

}  // namespace gilsan::checkers
