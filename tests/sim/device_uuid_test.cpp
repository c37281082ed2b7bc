// cuDeviceGetUuid: a UUID per device that stays the same for the process and differs between devices,
// with the driver API's errors for a bad device or a missing output.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

CUuuid uuid_of(CUdevice device) {
  CUuuid uuid;
  std::memset(&uuid, 0, sizeof uuid);
  EXPECT_CU(driver().cuDeviceGetUuid(&uuid, device));
  return uuid;
}

TEST(DeviceUuid, StableForADeviceAndNotAllZero) {
  const CUuuid first = uuid_of(0);
  const CUuuid again = uuid_of(0);
  EXPECT_EQ(0, std::memcmp(first.bytes, again.bytes, sizeof first.bytes));
  CUuuid zero;
  std::memset(&zero, 0, sizeof zero);
  EXPECT_NE(0, std::memcmp(first.bytes, zero.bytes, sizeof zero.bytes));
}

TEST(DeviceUuid, EachDeviceHasItsOwn) {
  int count = 0;
  ASSERT_CU(driver().cuDeviceGetCount(&count));
  if (count < 2) GTEST_SKIP() << "one device";
  const CUuuid first = uuid_of(0);
  const CUuuid second = uuid_of(1);
  EXPECT_NE(0, std::memcmp(first.bytes, second.bytes, sizeof first.bytes));
}

TEST(DeviceUuid, BadDeviceAndMissingOutput) {
  CUuuid uuid;
  int count = 0;
  ASSERT_CU(driver().cuDeviceGetCount(&count));
  EXPECT_EQ(CUDA_ERROR_INVALID_DEVICE, driver().cuDeviceGetUuid(&uuid, count));
  EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, driver().cuDeviceGetUuid(nullptr, 0));
}

}  // namespace
}  // namespace gilsan::test
