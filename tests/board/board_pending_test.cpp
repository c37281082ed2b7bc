// The table of pending host functions within one process: a note that has room in its window is
// placed whatever the notes before it found, and one is counted lost without a look only while the
// table is full.
#include <stdlib.h>

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/board/board_writer.h"

namespace gilsan::board {
namespace {

// Where the table starts looking for an id's entry (board_tables.cpp's start_index): the tests pick
// ids by the window they fall in.
std::size_t window_of(std::uint64_t id) {
  return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ULL) >> 40) % kMaxPendingHostFunctions;
}

HostFunctionInfo pending(std::uint64_t id) {
  HostFunctionInfo info;
  info.id = id;
  info.kind = HostFunctionKind::Native;
  info.implementation = "test";
  return info;
}

// Ids in increasing order whose windows start at `window`, beginning after `after`.
std::vector<std::uint64_t> ids_starting_at(std::size_t window, std::size_t count, std::uint64_t after = 0) {
  std::vector<std::uint64_t> ids;
  for (std::uint64_t id = after + 1; ids.size() < count; ++id) {
    if (window_of(id) == window) ids.push_back(id);
  }
  return ids;
}

TEST(BoardPendingTable, MissesInOneWindowDoNotCostANoteWithRoomInAnother) {
  static BoardRegion region = BoardRegion::create();  // attached for the rest of this process
  ::setenv(kBoardEnvironmentVariable, region.path().c_str(), 1);
  ASSERT_TRUE(attach());
  BoardReader reader(region.board());
  // 32 notes fill window 0 (its probes reach entries 0..31); two more that start there find it full.
  const std::vector<std::uint64_t> crowded = ids_starting_at(0, 34);
  for (std::size_t i = 0; i < 32; ++i) ASSERT_TRUE(note_host_function_enqueued(pending(crowded[i])));
  EXPECT_FALSE(note_host_function_enqueued(pending(crowded[32])));
  EXPECT_FALSE(note_host_function_enqueued(pending(crowded[33])));
  // The table is far from full: a note whose window is empty is placed, and so are the next ones.
  for (std::uint64_t id : ids_starting_at(128, 3, crowded.back())) {
    EXPECT_TRUE(note_host_function_enqueued(pending(id))) << "id " << id;
  }
  EXPECT_EQ(reader.pending_host_functions().size(), 35u);
  EXPECT_EQ(reader.read().lost_writes, 2u);

  // Once the table is full, notes are lost (and counted) until an entry is taken off; then the next
  // note that has room is placed.
  std::uint64_t next = 1'000'000;
  while (reader.pending_host_functions().size() < kMaxPendingHostFunctions && next < 2'000'000) {
    note_host_function_enqueued(pending(next++));
  }
  ASSERT_EQ(reader.pending_host_functions().size(), kMaxPendingHostFunctions);
  const std::uint64_t lost_before = reader.read().lost_writes;
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(note_host_function_enqueued(pending(next++)));
  EXPECT_EQ(reader.read().lost_writes, lost_before + 10);
  note_host_function_dropped(crowded[5], "test");  // window 0 has room again
  EXPECT_TRUE(note_host_function_enqueued(pending(crowded[32])));
  EXPECT_EQ(reader.pending_host_functions().size(), kMaxPendingHostFunctions);
}

}  // namespace
}  // namespace gilsan::board
