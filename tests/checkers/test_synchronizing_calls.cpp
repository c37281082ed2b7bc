// The synchronizing calls are one table (checkers/core/synchronizing_calls.inc): every row, fed
// to the sanitizer's sources (CompletionWaits) and to the watchdog's wait-for graph, must wait for the
// same thing on both sides, the NULL and legacy streams included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkers/sources/completion_waits.h"
#include "checkers/core/synchronizing_calls.h"
#include "harness/watchdog/wait_graph_builder.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan {
namespace {

using checkers::CompletionWait;
using watchdog::testing::kContext;
using watchdog::testing::kMain;

constexpr checkers::Handle kWaitedEvent = 0xe1;

bool nothing_blocks(std::string_view) { return false; }

// What the watchdog's graph says the calling thread waits for, in the core's terms: the streams
// whose completion it needs, or the whole context. Events are followed to the stream they were
// recorded on.
CompletionWait watchdog_waits_of(const std::string& entry_point, std::uint64_t stream, std::uint64_t recorded_on) {
  watchdog::testing::SnapshotBuilder builder;
  watchdog::ThreadSnapshot& main_thread = builder.board_thread(kMain, board::Role::Main);
  main_thread.board->calls.push_back(watchdog::testing::call(entry_point, stream, kWaitedEvent));
  builder.snapshot().events.push_back(board::EventRecord{kWaitedEvent, recorded_on, kContext, 10});
  const watchdog::Snapshot& snapshot = builder.snapshot();
  const watchdog::WaitForGraph graph =
      watchdog::build_wait_for_graph(snapshot, watchdog::derive_facts(snapshot), &nothing_blocks);
  CompletionWait wait;
  std::vector<std::string> frontier = {"thread:" + std::to_string(kMain)};
  while (!frontier.empty()) {
    const std::string id = frontier.back();
    frontier.pop_back();
    for (const watchdog::WaitEdge* edge : graph.edges_from(id)) {
      const watchdog::WaitNode* to = graph.node(edge->to);
      switch (to->kind) {
        case watchdog::NodeKind::stream_completion: wait.streams.push_back(to->handle); break;
        case watchdog::NodeKind::context_completion: wait.whole_context = true; break;
        case watchdog::NodeKind::event: frontier.push_back(to->id); break;
        default: ADD_FAILURE() << entry_point << " waits for " << to->id;
      }
    }
  }
  return wait;
}

CompletionWait core_waits_of(std::string_view entry_point, checkers::Handle stream, checkers::Handle recorded_on) {
  checkers::CompletionWaits waits;
  waits.event_recorded(kWaitedEvent, recorded_on);
  return waits.waits_of(entry_point, stream, kWaitedEvent);
}

void expect_same_wait(const std::string& entry_point, checkers::Handle stream, checkers::Handle recorded_on) {
  SCOPED_TRACE(entry_point + " on stream " + std::to_string(stream) + ", event recorded on " +
               std::to_string(recorded_on));
  const CompletionWait core = core_waits_of(entry_point, stream, recorded_on);
  const CompletionWait hang = watchdog_waits_of(entry_point, stream, recorded_on);
  EXPECT_EQ(core.streams, hang.streams);
  EXPECT_EQ(core.whole_context, hang.whole_context);
}

TEST(SynchronizingCalls, EveryRowWaitsForTheSameThingOnBothSides) {
  for (const SynchronizingCall& row : kSynchronizingCalls) {
    const std::string name(row.entry_point);
    expect_same_wait(name, 0x10, 0x20);
    EXPECT_FALSE(core_waits_of(name, 0x10, 0x20).empty()) << name;
  }
}

TEST(SynchronizingCalls, TheNullAndLegacyStreamsAreTheWholeContextOnBothSides) {
  for (const SynchronizingCall& row : kSynchronizingCalls) {
    const std::string name(row.entry_point);
    for (checkers::Handle special : {checkers::kNullStream, checkers::kLegacyStream, checkers::kPerThreadStream}) {
      expect_same_wait(name, special, 0x20);   // a stream wait on the special stream
      expect_same_wait(name, 0x10, special);   // an event recorded on it
    }
  }
  EXPECT_TRUE(core_waits_of("cuStreamSynchronize", checkers::kLegacyStream, 0x20).whole_context);
  EXPECT_EQ(std::vector<checkers::Handle>{checkers::kPerThreadStream},
            core_waits_of("cuStreamSynchronize", checkers::kPerThreadStream, 0x20).streams);
}

TEST(SynchronizingCalls, CallsOutsideTheTableWaitForNothingOnBothSides) {
  for (const char* name : {"cuStreamQuery", "cudaStreamQuery", "cuEventQuery", "cuLaunchHostFunc", "cuMemcpyHtoD"}) {
    expect_same_wait(name, 0x10, 0x20);
    EXPECT_TRUE(core_waits_of(name, 0x10, 0x20).empty()) << name;
  }
}

TEST(SynchronizingCalls, DriverAndRuntimeNamesWaitAlike) {
  EXPECT_TRUE(synchronizing_wait("cuStreamSynchronize") == SynchronizingWait::stream);
  EXPECT_TRUE(synchronizing_wait("cudaStreamSynchronize") == SynchronizingWait::stream);
  EXPECT_TRUE(synchronizing_wait("cuEventSynchronize") == SynchronizingWait::event);
  EXPECT_TRUE(synchronizing_wait("cudaEventSynchronize") == SynchronizingWait::event);
  EXPECT_TRUE(synchronizing_wait("cuCtxSynchronize") == SynchronizingWait::context);
  EXPECT_TRUE(synchronizing_wait("cudaDeviceSynchronize") == SynchronizingWait::context);
  EXPECT_FALSE(synchronizing_wait("cuStreamSynchronize_ptsz").has_value());  // names come without suffixes
  EXPECT_FALSE(synchronizing_wait("cuStreamQuery").has_value());
}

// A per-thread variant's NULL stream is not the legacy stream: the watchdog reads the suffix from the
// board (the sanitizer's sources map that stream to 0x2 before asking, entry_point_names.h).
TEST(SynchronizingCalls, APerThreadVariantsNullStreamIsNotTheWholeContext) {
  EXPECT_TRUE(watchdog_waits_of("cuStreamSynchronize", 0, 0x20).whole_context);
  const CompletionWait per_thread = watchdog_waits_of("cuStreamSynchronize_ptsz", 0, 0x20);
  EXPECT_FALSE(per_thread.whole_context);
  EXPECT_EQ(std::vector<std::uint64_t>{0}, per_thread.streams);
}

}  // namespace
}  // namespace gilsan
