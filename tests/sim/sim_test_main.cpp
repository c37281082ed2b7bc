// The driver test binary: `gilsan_sim_tests [--driver sim|real] [--profile FILE] [gtest flags]`.
//
// The same tests run against the simulated driver (the default, in CI) and against the real one on a
// GPU machine; tests of properties only the sim has skip themselves on the real driver. --profile
// names the profile the per-entry-point tests expect (default: the sim's profile, else the shipped one).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "harness/driver/driver_selection.h"
#include "tests/sim/expected_profile.h"
#include "tests/sim/test_support.h"

namespace {

class DriverEnvironment : public ::testing::Environment {
 public:
  explicit DriverEnvironment(gilsan::DriverRequest request) : request_(request) {}
  void SetUp() override {
    try {
      gilsan::DriverChoice choice = gilsan::open_driver(request_);
      std::printf("driver: %s (%s)\n", gilsan::to_string(choice.kind), choice.reason.c_str());
      gilsan::test::set_driver(std::move(choice.table), choice.kind == gilsan::DriverKind::Sim);
    } catch (const std::exception& error) {
      FAIL() << "cannot open the driver: " << error.what();
    }
  }

 private:
  gilsan::DriverRequest request_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string driver = "sim";
  std::string profile;
  // Take our options out of argv before GoogleTest reads it.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if ((argument == "--driver" || argument == "--profile") && i + 1 < argc) {
      (argument == "--driver" ? driver : profile) = argv[++i];
    } else if (argument.starts_with("--driver=")) {
      driver = argument.substr(9);
    } else if (argument.starts_with("--profile=")) {
      profile = argument.substr(10);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  ::testing::InitGoogleTest(&argc, argv);
  gilsan::DriverRequest request;
  try {
    request = gilsan::parse_driver_request(driver);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  gilsan::test::set_expected_profile_path(profile);
  ::testing::AddGlobalTestEnvironment(new DriverEnvironment(request));
  return RUN_ALL_TESTS();
}
