#include "harness/driver/driver_table.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "harness/driver/driver_selection.h"

namespace gilsan {
namespace {

TEST(DriverTable, ResolvesWhatTheDriverHasAndStubsTheRest) {
  auto table = DriverTable::load(GILSAN_TEST_PARTIAL_DRIVER);
  int version = 0;
  EXPECT_EQ(table->cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(table->cuDriverGetVersion(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, 4242);

  const auto& missing = table->missing_entry_points();
  EXPECT_EQ(missing.size(), driver_entry_point_names().size() - 2);
  EXPECT_NE(std::find(missing.begin(), missing.end(), "cuStreamSynchronize"), missing.end());
  EXPECT_EQ(std::find(missing.begin(), missing.end(), "cuInit"), missing.end());

  const auto before = DriverTable::missing_entry_point_calls();
  CUdeviceptr ptr = 0;
  EXPECT_EQ(table->cuMemAlloc(&ptr, 16), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(table->cuStreamSynchronize(nullptr), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(DriverTable::missing_entry_point_calls(), before + 2);
  EXPECT_FALSE(table->is_simulated());
}

TEST(DriverTable, ErrorNameFallsBackToTheNumberWithoutCuGetErrorName) {
  auto table = DriverTable::load(GILSAN_TEST_PARTIAL_DRIVER);
  EXPECT_EQ(table->error_name(CUDA_ERROR_NOT_PERMITTED), "CUresult(800)");
}

TEST(DriverTable, AMissingLibraryIsAClearError) {
  try {
    DriverTable::load("/nonexistent/libcuda.so.1");
    FAIL() << "expected DriverLoadError";
  } catch (const DriverLoadError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("cannot load CUDA driver '/nonexistent/libcuda.so.1'"), std::string::npos) << what;
  }
}

TEST(DriverTable, ALibraryWithoutGetProcAddressIsNotADriver) {
  try {
    DriverTable::load("libm.so.6");
    FAIL() << "expected DriverLoadError";
  } catch (const DriverLoadError& error) {
    EXPECT_NE(std::string(error.what()).find("exports no cuGetProcAddress_v2"), std::string::npos) << error.what();
  }
}

TEST(DriverSelection, ParsesRequests) {
  EXPECT_EQ(parse_driver_request("auto"), DriverRequest::Auto);
  EXPECT_EQ(parse_driver_request("real"), DriverRequest::Real);
  EXPECT_EQ(parse_driver_request("sim"), DriverRequest::Sim);
  EXPECT_THROW(parse_driver_request("gpu"), std::invalid_argument);
}

}  // namespace
}  // namespace gilsan
