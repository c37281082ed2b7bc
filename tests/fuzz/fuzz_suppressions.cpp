// A suppression file (checkers/core/suppressions.h): any text parses or is a SuppressionError of one line
// naming the file. Its first line is also tried as a glob against the rest, so a pattern that makes the
// matcher take exponential time shows up as a libFuzzer timeout.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checkers/core/suppressions.h"
#include "tests/fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gilsan::fuzz::as_text(data, size);
  try {
    (void)gilsan::checkers::Suppressions::parse(text, "fuzz.supp");
  } catch (const gilsan::checkers::SuppressionError& error) {
    gilsan::fuzz::require_one_line_naming(error, "fuzz.supp:");
  }
  const std::size_t line_end = text.find('\n');
  if (line_end != std::string_view::npos)
    (void)gilsan::checkers::glob_match(text.substr(0, line_end), text.substr(line_end + 1));
  return 0;
}
