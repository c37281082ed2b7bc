// HostCopyWorkers: every byte arrives for any split, parts never cross the copy's end, and one pool
// serves many copies in a row (the callback thread's use) and is torn down cleanly, idle or not yet used.
#include "harness/pymodule/host_copy_workers.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gilsan::pymodule {
namespace {

std::vector<std::uint8_t> pattern(std::size_t size, unsigned seed) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>((i * 131 + seed * 17 + (i >> 9)) & 0xFF);
  return bytes;
}

void expect_copy(HostCopyWorkers& workers, std::size_t size, std::size_t source_offset, std::size_t guard) {
  const std::vector<std::uint8_t> source = pattern(size + source_offset, static_cast<unsigned>(size));
  std::vector<std::uint8_t> destination(size + 2 * guard, 0xEE);
  workers.copy(destination.data() + guard, source.data() + source_offset, size);
  for (std::size_t i = 0; i < guard; ++i) {
    ASSERT_EQ(destination[i], 0xEE) << "wrote before the destination, size " << size;
    ASSERT_EQ(destination[guard + size + i], 0xEE) << "wrote past the destination, size " << size;
  }
  for (std::size_t i = 0; i < size; ++i)
    ASSERT_EQ(destination[guard + i], source[source_offset + i]) << "byte " << i << " of " << size;
}

TEST(HostCopyWorkers, EverySizeAroundThePartBoundariesArrivesIntact) {
  constexpr std::size_t part = HostCopyWorkers::kMinPartBytes;
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    HostCopyWorkers workers(threads);
    EXPECT_EQ(workers.threads(), threads);
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, part - 1, part, part + 1, 2 * part - 1, 2 * part + 3,
                             7 * part + 65, 33 * part + 1}) {
      SCOPED_TRACE(testing::Message() << "threads " << threads << ", size " << size);
      expect_copy(workers, size, size % 7, 64);
    }
  }
}

TEST(HostCopyWorkers, OnePoolServesManyCopiesInARow) {
  HostCopyWorkers workers(4);
  for (unsigned round = 0; round < 200; ++round)
    expect_copy(workers, 4 * HostCopyWorkers::kMinPartBytes + round, round % 5, 8);
}

TEST(HostCopyWorkers, ThreadCountIsClampedAndAnUnusedPoolStopsCleanly) {
  EXPECT_EQ(HostCopyWorkers(0).threads(), 1u);
  EXPECT_EQ(HostCopyWorkers(HostCopyWorkers::kMaxThreads + 5).threads(), HostCopyWorkers::kMaxThreads);
}

}  // namespace
}  // namespace gilsan::pymodule
