// A scenario file's `# gilsan:` header (harness/scenario/scenario_header.h): any text parses or is a
// ScenarioInputError of one line naming the file.
#include <cstddef>
#include <cstdint>

#include "harness/scenario/scenario_header.h"
#include "tests/fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)gilsan::parse_scenario_header(gilsan::fuzz::as_text(data, size), "fuzz.py");
  } catch (const gilsan::ScenarioInputError& error) {
    gilsan::fuzz::require_one_line_naming(error, "fuzz.py:");
  }
  return 0;
}
