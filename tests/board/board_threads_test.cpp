// The board within one process, with writer threads and a reader thread at once: meant for the
// ThreadSanitizer build (every access to the region must be an atomic), and checks the seqlock's
// promise that a read is all-old or all-new.
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/board/board_writer.h"

namespace gilsan::board {
namespace {

TEST(BoardThreads, ConcurrentWritersAndAReader) {
  // This test binary attaches once for its whole life; the board stays until the process ends.
  static BoardRegion region = BoardRegion::create();
  ::setenv(kBoardEnvironmentVariable, region.path().c_str(), 1);
  ASSERT_TRUE(attach());

  constexpr std::uint64_t kWriters = 3;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> writing{0};
  std::vector<std::thread> writers;
  for (std::uint64_t w = 1; w <= kWriters; ++w) {
    writers.emplace_back([&stop, &writing, w] {
      set_role(Role::OtherNative, w);
      HostFunctionInfo info;
      info.kind = HostFunctionKind::Native;
      info.implementation = "test";
      // Entry point names outlive their calls (enter_call's contract): a fixed set per writer, each
      // naming the stream it is entered with, reused so that the board finds one already in place.
      std::vector<std::string> names;
      for (std::uint64_t k = 0; k < 64; ++k) names.push_back("cu" + std::to_string(w * 1'000'000 + k));
      // One call stays open throughout, so every consistent read has a call record to check.
      std::string outer = "cu" + std::to_string(w);
      enter_call(outer.c_str(), w, w, w);
      writing.fetch_add(1);
      for (std::uint64_t i = w * 1'000'000; !stop.load(std::memory_order_relaxed); ++i) {
        // A thread that writes without pause can starve the reader's seqlock; real writers pause
        // (they block, which is when the watchdog reads), so these do now and then.
        if (i % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
        std::string name = "cu" + std::to_string(i);
        info.id = i;
        info.stream = i;
        info.description = name.c_str();
        note_host_function_enqueued(info);
        begin_host_function(info);
        set_gil_state(GilState::Waiting);
        const std::uint64_t named = w * 1'000'000 + i % names.size();
        enter_call(names[i % names.size()].c_str(), named, named, named);
        note_event_recorded(w, i, i);
        exit_call();
        set_gil_state(GilState::Released);
        end_host_function();
        expect_device_work(1000);
      }
      exit_call();
    });
  }
  // A failed assertion returns early: the writers are stopped and joined on every way out.
  struct StopAndJoin {
    std::atomic<bool>& stop;
    std::vector<std::thread>& writers;
    ~StopAndJoin() {
      stop = true;
      for (std::thread& writer : writers) writer.join();
    }
  } stop_and_join{stop, writers};
  // The reader starts once every writer is inside its loop and reads until it has seen the writers
  // finish host functions (so it read while they wrote): the 3,000 rounds alone take milliseconds,
  // less than a loaded CI machine can take to start the writers (a CI run failed it, 2026-12-06).
  // The deadline only keeps a broken writer from hanging the test.
  while (writing.load() < kWriters) std::this_thread::yield();
  BoardReader reader(region.board());
  const auto host_functions_ended = [&reader] {
    return reader.progress()[static_cast<std::size_t>(ProgressKind::HostFunction)];
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t checked = 0;
  for (int round = 0; round < 3000 || checked < 1000 || host_functions_ended() < 1000; ++round) {
    ASSERT_TRUE(std::chrono::steady_clock::now() < deadline) << "rounds " << round << ", calls checked " << checked;
    BoardContents contents = reader.read();
    for (const ThreadRecord& thread : contents.threads) {
      if (!thread.consistent) continue;
      for (const CallRecord& call : thread.calls) {
        ASSERT_EQ(call.context, call.stream);
        ASSERT_EQ(call.entry_point, "cu" + std::to_string(call.stream));
        ++checked;
      }
      for (const HostFunctionRecord& function : thread.host_functions) {
        ASSERT_EQ(function.description, "cu" + std::to_string(function.id));
      }
    }
    for (const EventRecord& event : contents.events) ASSERT_EQ(event.stream, event.context);
    for (const HostFunctionRecord& pending : contents.pending_host_functions) {
      ASSERT_EQ(pending.stream, pending.id);
    }
  }
}

}  // namespace
}  // namespace gilsan::board
