// The table of pending host functions across fork (a child writes, the parent reads; see
// board_process_test.cpp): a queue deeper than the table, and enqueues that say whether they were
// placed. A binary of its own: every writer call must happen in a child, whose writer starts
// unattached, and board_pending_test.cpp writes in its own process.
#include <cstdint>
#include <gtest/gtest.h>
#include <thread>

#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/board/board_writer.h"
#include "tests/board/board_child.h"

namespace gilsan::board {
namespace {

// More pending host functions than the table holds (a deep queue behind a held host function): the
// ones that found no slot are counted lost, and every one that was placed is found again when it
// starts (a start of one never placed changes nothing), so the table ends empty but for a last one.
TEST(BoardAcrossFork, APendingQueueDeeperThanTheTableLosesTheRestAndFindsEveryPlacedOne) {
  BoardRegion region = BoardRegion::create();
  constexpr std::uint64_t kQueued = 4 * kMaxPendingHostFunctions;
  ASSERT_EQ(run_child(region.path(), [] {
              for (std::uint64_t id = 1; id <= kQueued; ++id) note_host_function_enqueued(host_function(id, 0x10));
              for (std::uint64_t id = 1; id <= kQueued; ++id) note_host_function_dropped(id, "gilsan");
              note_host_function_enqueued(host_function(kQueued + 1, 0x20));
              return 0;
            }),
            0);
  BoardReader reader(region.board());
  const auto pending = reader.pending_host_functions();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, kQueued + 1);
  const std::uint64_t lost = reader.read().lost_writes;
  EXPECT_GE(lost, kQueued - kMaxPendingHostFunctions);
  EXPECT_LT(lost, kQueued - kMaxPendingHostFunctions / 2);
}

// An enqueue says whether the table took it, and a begin told that it did not
// (HostFunctionInfo::maybe_pending false) leaves the table alone instead of looking for it.
TEST(BoardAcrossFork, AnEnqueueSaysWhetherItWasPlacedAndABeginToldItWasNotLooksForNothing) {
  BoardRegion region = BoardRegion::create();
  constexpr std::uint64_t kQueued = 4 * kMaxPendingHostFunctions;
  ASSERT_EQ(run_child(region.path(), [] {
              if (!note_host_function_enqueued(host_function(1, 0x10))) return 2;
              if (!note_host_function_enqueued(host_function(2, 0x10))) return 3;
              std::thread callback([] {
                HostFunctionInfo told_not_placed = host_function(1, 0x10);
                told_not_placed.maybe_pending = false;
                begin_host_function(told_not_placed);  // so its entry stays
                end_host_function();
                begin_host_function(host_function(2, 0x10));
                end_host_function();
              });
              callback.join();
              std::uint64_t refused = 0;
              for (std::uint64_t id = 1000; id < 1000 + kQueued; ++id) {
                if (!note_host_function_enqueued(host_function(id, 0x20))) ++refused;
              }
              return refused > 0 && refused < kQueued ? 0 : 4;
            }),
            0);
  BoardReader reader(region.board());
  const auto pending = reader.pending_host_functions();
  bool has_1 = false;
  bool has_2 = false;
  for (const auto& entry : pending) {
    has_1 = has_1 || entry.id == 1;
    has_2 = has_2 || entry.id == 2;
  }
  EXPECT_TRUE(has_1);
  EXPECT_FALSE(has_2);
  // Every enqueue was either placed (and is pending still) or refused and counted lost.
  EXPECT_EQ(pending.size() + reader.read().lost_writes, 1 + kQueued);
}

}  // namespace
}  // namespace gilsan::board
