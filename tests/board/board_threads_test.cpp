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

  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (std::uint64_t w = 1; w <= 3; ++w) {
    writers.emplace_back([&stop, w] {
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
  BoardReader reader(region.board());
  std::size_t checked = 0;
  for (int round = 0; round < 3000; ++round) {
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
  stop = true;
  for (std::thread& writer : writers) writer.join();
  EXPECT_GT(checked, 0u);
  EXPECT_GT(reader.progress()[static_cast<std::size_t>(ProgressKind::HostFunction)], 0u);
}

}  // namespace
}  // namespace gilsan::board
