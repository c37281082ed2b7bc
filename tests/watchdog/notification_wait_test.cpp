// A wait for a notification (threading.Condition.wait, and Event, Queue, Future, Barrier, Semaphore
// through it) is never a lock with a holder: the waiter waits for a thread that may notify, each
// blocked Python thread a candidate, marked inferred; the class goes through the notifier.
#include <algorithm>
#include <gtest/gtest.h>

#include "harness/watchdog/classifier.h"
#include "harness/watchdog/wait_graph_builder.h"
#include "tests/watchdog/child_runner.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan::watchdog::testing {
namespace {

using board::GilState;
using board::LockKind;
using board::Role;

board::LockRecord notification_of(const std::string& name) {
  board::LockRecord wait;
  wait.id = 0x4242;
  wait.name = name;
  wait.kind = LockKind::Notification;
  return wait;
}

// The host function on stream 1 waits for an Event; a Python worker waits in the driver for stream 1.
SnapshotBuilder event_behind_its_own_stream() {
  SnapshotBuilder builder;
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->waiting_lock = notification_of("Event at app.py:10");
  ThreadSnapshot& worker = builder.board_thread(kOther, Role::Python);
  worker.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  worker.board->gil_state = GilState::Released;
  return builder;
}

TEST(NotificationWaits, AHostFunctionWaitingThroughItsNotifierForItsOwnStreamWaitsForItself) {
  SnapshotBuilder builder = event_behind_its_own_stream();
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_self_wait);
  ASSERT_EQ(result.cycle.size(), 3u);
  const auto notified = std::find_if(result.cycle.begin(), result.cycle.end(),
                                     [](const WaitEdge& edge) { return edge.evidence == kNotificationWait; });
  ASSERT_NE(notified, result.cycle.end());
  EXPECT_TRUE(notified->inferred);
  EXPECT_EQ(notified->relation, EdgeRelation::WaitsFor);
  EXPECT_EQ(notified->text,
            "thread 101 (callback thread of context 0x30) waits for a notification of Event at app.py:10, which thread "
            "102 (python thread) may give: any live Python thread may, and this one is blocked");
  // No lock node, no holder: nobody holds a notification.
  for (const WaitNode& node : result.graph.nodes()) EXPECT_NE(node.kind, NodeKind::user_lock) << node.id;
}

TEST(NotificationWaits, AFreePythonThreadMayStillNotifySoItIsNoCandidate) {
  SnapshotBuilder builder = event_behind_its_own_stream();
  builder.board_thread(kMain, Role::Main);  // running, not blocked
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  for (const WaitEdge& edge : result.graph.edges()) EXPECT_NE(edge.to, "thread:100") << edge.text;
}

TEST(NotificationWaits, WithNoBlockedPythonThreadThereIsNoCycle) {
  SnapshotBuilder builder;
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->waiting_lock = notification_of("Queue at app.py:4");
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_TRUE(result.graph.edges_from("thread:101").empty());
}

TEST(NotificationWaits, AThreadWaitingForALockAfterItsNotificationIsALockWaitAgain) {
  // The board keeps one wait per thread: a Condition's waiter, woken, waits for the Condition's lock.
  SnapshotBuilder builder = event_behind_its_own_stream();
  builder.snapshot().threads.front().board->waiting_lock = board::LockRecord{0x99, "Lock of Event at app.py:10", 5};
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  EXPECT_NE(result.graph.node("lock:0x99"), nullptr);
}

}  // namespace
}  // namespace gilsan::watchdog::testing
