// GILSAN_SIM_FAIL (harness/simcuda/sim_injected_failures.h): any value parses or is a
// std::invalid_argument of one line, which the simulated driver prefixes with the variable's name.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "harness/simcuda/sim_injected_failures.h"
#include "tests/fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)gilsan::sim::InjectedFailures::parse(gilsan::fuzz::as_text(data, size));
  } catch (const std::invalid_argument& error) {
    gilsan::fuzz::require_one_line_naming(error, "");
  }
  return 0;
}
