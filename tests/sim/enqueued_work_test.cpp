// Enqueued work while a host function runs, per loading mode: a warm launch, the first launch of a
// module's function and of a library's kernel, the first cuKernelGetFunction and a memset, each in a
// child process of its own under CUDA_MODULE_LOADING=LAZY and =EAGER. On either driver the child
// must do what the expected profile's cell says; `--driver real` compares the GPU with the profile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "tests/sim/child_process.h"
#include "tests/sim/expected_profile.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

const char* const kCells[] = {"cuLaunchKernel", "cuLaunchKernel#first-module-function",
                              "cuLaunchKernel#first-library-kernel", "cuKernelGetFunction#first", "cuMemsetD8Async"};

std::map<std::string, std::string> loading(ModuleLoading mode) {
  return {{"CUDA_MODULE_LOADING", mode == ModuleLoading::Eager ? "EAGER" : "LAZY"}};
}

// Runs the cell in a child and checks both halves against `expected`.
void expect_cell(const std::string& cell, WorkBehaviour expected, std::map<std::string, std::string> environment) {
  ChildProcess child(child_arguments({"enqueued-work", cell}), environment);
  ASSERT_TRUE(child.wait_for_exit(std::chrono::seconds(2 * kHangTimeout))) << child.output();
  ASSERT_EQ(child.exit_code(), 0) << child.output();
  EXPECT_EQ(child.line_value("call-returned-while-held "), expected == WorkBehaviour::CallBlocks ? "no" : "yes")
      << cell << " expected " << to_string(expected) << "\n" << child.output();
  if (expected != WorkBehaviour::CallBlocks) {
    EXPECT_EQ(child.line_value("work-completed-while-held "), expected == WorkBehaviour::WorkWaits ? "no" : "yes")
        << cell << " expected " << to_string(expected) << "\n" << child.output();
  }
  EXPECT_EQ(child.line_value("result "), "CUDA_SUCCESS") << child.output();
  EXPECT_EQ(child.line_value("work-completed-after "), "yes") << child.output();
}

class EnqueuedWork : public testing::TestWithParam<std::tuple<ModuleLoading, const char*>> {};

TEST_P(EnqueuedWork, FollowsTheProfilesCellForTheLoadingMode) {
  const auto [mode, cell] = GetParam();
  expect_cell(cell, expected_profile().work(mode, cell), loading(mode));
}

INSTANTIATE_TEST_SUITE_P(
    Cells, EnqueuedWork, testing::Combine(testing::Values(ModuleLoading::Lazy, ModuleLoading::Eager), testing::ValuesIn(kCells)),
    [](const testing::TestParamInfo<EnqueuedWork::ParamType>& info) {
      std::string name = std::string(to_string(std::get<0>(info.param))) + "_" + std::get<1>(info.param);
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// The simulated driver models every value of every cell, in the mode the child runs under: a profile
// in which lazy first uses hold back the call or the work, and eager ones the other way round.
TEST(SimEnqueuedWork, EachLoadingModeGetsItsOwnCells) {
  SIM_ONLY();
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  auto& lazy = profile.enqueued_work[ModuleLoading::Lazy];
  auto& eager = profile.enqueued_work[ModuleLoading::Eager];
  lazy["cuLaunchKernel#first-module-function"] = WorkBehaviour::CallBlocks;
  lazy["cuLaunchKernel#first-library-kernel"] = WorkBehaviour::WorkWaits;
  lazy["cuKernelGetFunction#first"] = WorkBehaviour::Proceeds;
  lazy["cuLaunchKernel"] = WorkBehaviour::Proceeds;
  eager["cuLaunchKernel#first-module-function"] = WorkBehaviour::WorkWaits;
  eager["cuLaunchKernel#first-library-kernel"] = WorkBehaviour::Proceeds;
  eager["cuKernelGetFunction#first"] = WorkBehaviour::CallBlocks;
  eager["cuLaunchKernel"] = WorkBehaviour::WorkWaits;
  const ProfileFile file(to_json(profile));
  for (ModuleLoading mode : module_loading_modes()) {
    for (const char* cell : kCells) {
      auto environment = loading(mode);
      environment["GILSAN_SIM_PROFILE"] = file.path();
      SCOPED_TRACE(std::string(to_string(mode)) + " " + cell);
      expect_cell(cell, profile.work(mode, cell), environment);
    }
  }
}

// A `work-waits` cell holds back work enqueued while a host function of the context runs, not work
// enqueued before one began: a host function that began while such work still waited for its turn
// sees it done (gilsan-probe's inside cuEventSynchronize case hung on a loaded machine when the sim
// held that work back too).
TEST(SimEnqueuedWork, WorkEnqueuedBeforeAHostFunctionBeganIsNotHeldBackByIt) {
  SIM_ONLY();
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  profile.enqueued_work[ModuleLoading::Lazy]["cuLaunchKernel"] = WorkBehaviour::WorkWaits;
  const ProfileFile file(to_json(profile));
  auto environment = loading(ModuleLoading::Lazy);
  environment["GILSAN_SIM_PROFILE"] = file.path();
  ChildProcess child(child_arguments({"work-enqueued-before-host-function"}), environment);
  ASSERT_TRUE(child.wait_for_exit(std::chrono::seconds(2 * kHangTimeout))) << child.output();
  EXPECT_EQ(child.exit_code(), 0) << child.output();
  EXPECT_EQ(child.line_value("host-function-wait-returned "), "yes") << child.output();
  EXPECT_EQ(child.line_value("result "), "CUDA_SUCCESS") << child.output();
}

}  // namespace
}  // namespace gilsan::test
