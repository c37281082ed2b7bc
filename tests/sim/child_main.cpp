// gilsan_sim_test_child: the helper the tests of tests/sim start in a process of its own, for what
// must not happen in the test process: calls that hang, a driver started with another configuration,
// a process that exits with work pending.
//
// Usage: gilsan_sim_test_child --driver sim|real SCENARIO [ARGUMENT]
// It reports on standard output, one "key value" line at a time, flushed at once, so that the test
// can read how far it got even when it hangs. Exit status 0 when the scenario ran to its end.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "harness/driver/driver_selection.h"
#include "tests/sim/child_scenarios.h"
#include "tests/sim/test_support.h"

int main(int argc, char** argv) {
  using namespace gilsan::test;
  if (argc < 4 || std::strcmp(argv[1], "--driver") != 0) {
    std::fprintf(stderr, "usage: %s --driver sim|real SCENARIO [ARGUMENT]\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[2];
  const std::string scenario = argv[3];
  const std::string argument = argc > 4 ? argv[4] : "";
  const ChildScenario* found = find_child_scenario(scenario);
  if (found == nullptr) {
    std::fprintf(stderr, "unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  try {
    if (found->initializes_driver_itself) {
      // The scenario loads the driver and calls cuInit itself, to see cuInit fail.
      set_driver(gilsan::DriverTable::load(kind == "real" ? gilsan::kRealDriverLibrary
                                                          : gilsan::simulated_driver_path()),
                 kind != "real");
    } else {
      gilsan::DriverChoice choice = gilsan::open_driver(gilsan::parse_driver_request(kind));
      set_driver(std::move(choice.table), choice.kind == gilsan::DriverKind::Sim);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cannot open the %s driver: %s\n", kind.c_str(), error.what());
    return 3;
  }
  return found->run(argument);
}
