// RecordPool (checkers/inject/record_pool.h): slots taken again once finished, a larger block when the
// next slot is still pending (the heap past the largest), one block per live launching thread, a block
// handed on when its thread exits.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "checkers/inject/record_pool.h"

namespace gilsan::checkers::inject {
namespace {

// What a launch does with a record, and what its run does at the end.
WrappedHostFunction* take_launched(RecordPool& pool) {
  WrappedHostFunction* record = pool.take();
  record->references.store(1, std::memory_order_relaxed);
  return record;
}

TEST(RecordPool, AFinishedSlotIsTakenAgainAfterALap) {
  RecordPool pool;
  std::vector<WrappedHostFunction*> lap;
  for (std::size_t i = 0; i < RecordPool::kFirstSlots; ++i) {
    lap.push_back(take_launched(pool));
    EXPECT_TRUE(lap.back()->pooled);
  }
  EXPECT_EQ(RecordPool::kFirstSlots, std::set<WrappedHostFunction*>(lap.begin(), lap.end()).size());
  EXPECT_EQ(RecordPool::kFirstSlots, pool.in_flight());
  for (WrappedHostFunction* record : lap) release_record(record);
  EXPECT_EQ(0u, pool.in_flight());
  EXPECT_EQ(lap.front(), take_launched(pool));
  EXPECT_EQ(1u, pool.blocks());
}

TEST(RecordPool, ATakenSlotIsClearedOfItsLastHostFunction) {
  RecordPool pool;
  for (std::size_t i = 0; i < RecordPool::kFirstSlots; ++i) {
    WrappedHostFunction* record = take_launched(pool);
    record->user_data = &pool;
    record->stream = 7;
    record->markers.store(inject::kBeginRan);
    record->one_shot = true;
    release_record(record);
  }
  const WrappedHostFunction* again = pool.take();
  EXPECT_EQ(nullptr, again->user_data);
  EXPECT_FALSE(again->stream.has_value());
  EXPECT_EQ(inject::kNoMarkers, again->markers.load());
  EXPECT_TRUE(again->pooled);
}

TEST(RecordPool, APendingSlotMovesTheThreadToABlockTwiceAsLarge) {
  RecordPool pool(4, 16);
  std::vector<WrappedHostFunction*> queued;
  for (int i = 0; i < 4; ++i) queued.push_back(take_launched(pool));
  // A lap later the first slot is still queued: a block of 8 serves, then one of 16.
  for (int i = 0; i < 8 + 16; ++i) {
    queued.push_back(take_launched(pool));
    EXPECT_TRUE(queued.back()->pooled) << i;
  }
  EXPECT_EQ(3u, pool.blocks());
  EXPECT_EQ(4u + 8u + 16u, pool.slots());
  // Past the largest block allowed, the heap serves and the pending slot is skipped.
  WrappedHostFunction* heap = take_launched(pool);
  EXPECT_FALSE(heap->pooled);
  EXPECT_EQ(3u, pool.blocks());
  release_record(heap);  // deleted (ASan checks it is freed once)
  for (WrappedHostFunction* record : queued) release_record(record);
  EXPECT_EQ(0u, pool.in_flight());
  // Once the queue has drained, the large block turns round again.
  for (int i = 0; i < 40; ++i) {
    WrappedHostFunction* record = take_launched(pool);
    EXPECT_TRUE(record->pooled);
    release_record(record);
  }
  EXPECT_EQ(3u, pool.blocks());
}

TEST(RecordPool, ABlockLeftBehindServesTheNextThreadThatNeedsOne) {
  RecordPool pool(2, 8);
  std::vector<WrappedHostFunction*> queued;
  for (int i = 0; i < 3; ++i) queued.push_back(take_launched(pool));  // moved on to a block of 4
  EXPECT_EQ(2u, pool.blocks());
  release_record(queued[0]);  // the first block's records finish
  release_record(queued[1]);
  WrappedHostFunction* on_other_thread = nullptr;
  std::thread([&] { on_other_thread = take_launched(pool); }).join();
  EXPECT_EQ(2u, pool.blocks());  // the block of 2 left behind, not a new one
  EXPECT_EQ(queued[0], on_other_thread);
  release_record(on_other_thread);
  release_record(queued[2]);
  EXPECT_EQ(0u, pool.in_flight());
}

TEST(RecordPool, TwoLiveThreadsHaveTwoBlocksAndAnExitedThreadsBlockIsReused) {
  RecordPool pool;
  WrappedHostFunction* first = nullptr;
  std::thread([&] { first = take_launched(pool); }).join();
  EXPECT_EQ(1u, pool.blocks());
  // The first thread is gone: the next launching thread takes its block, pending slot included.
  WrappedHostFunction* second = nullptr;
  std::thread([&] { second = take_launched(pool); }).join();
  EXPECT_EQ(1u, pool.blocks());
  EXPECT_NE(first, second);
  release_record(first);
  release_record(second);

  WrappedHostFunction* on_main = take_launched(pool);
  std::thread([&] { release_record(take_launched(pool)); }).join();
  EXPECT_EQ(2u, pool.blocks());
  release_record(on_main);
}

TEST(RecordPool, RunsOnAnotherThreadFinishRecordsSafely) {
  // The pattern of a real process: one thread launches, the callback thread finishes, concurrently.
  RecordPool pool;
  constexpr int kLaunches = 20000;
  std::vector<WrappedHostFunction*> queue(kLaunches, nullptr);
  std::atomic<int> queued{0};
  std::thread callback_thread([&] {
    for (int i = 0; i < kLaunches; ++i) {
      while (queued.load(std::memory_order_acquire) <= i) std::this_thread::yield();
      WrappedHostFunction* record = queue[i];
      EXPECT_EQ(reinterpret_cast<void*>(static_cast<std::intptr_t>(i + 1)), record->user_data);
      release_record(record);
    }
  });
  for (int i = 0; i < kLaunches; ++i) {
    WrappedHostFunction* record = take_launched(pool);
    record->user_data = reinterpret_cast<void*>(static_cast<std::intptr_t>(i + 1));
    queue[i] = record;
    queued.store(i + 1, std::memory_order_release);
  }
  callback_thread.join();
  EXPECT_EQ(0u, pool.in_flight());
}

}  // namespace
}  // namespace gilsan::checkers::inject
