// A suite's results as `gilsan merge` reads them (harness/reports/suite_merge.h): any text is a document
// or a std::runtime_error of one line naming the file.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "harness/reports/suite_merge.h"
#include "tests/fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)gilsan::parse_suite_results(gilsan::fuzz::as_text(data, size), "fuzz-results.json");
  } catch (const std::runtime_error& error) {
    gilsan::fuzz::require_one_line_naming(error, "fuzz-results.json:");
  }
  return 0;
}
