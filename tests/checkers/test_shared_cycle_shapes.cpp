// One table of deadlock shapes, each written twice: as the lock-order cycle the sanitizer core
// predicts (checkers::classify_cycle) and as the hang the watchdog sees (a snapshot for
// watchdog::classify). Both must name the shape with the same class: the taxonomy is one table
// (checkers/core/deadlock_classes.inc), and so must be its rules.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "checkers/core/deadlock_class.h"
#include "harness/watchdog/classifier.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan {
namespace {

using checkers::PseudoLock;
using watchdog::Snapshot;
using watchdog::ThreadSnapshot;
using watchdog::testing::call;
using watchdog::testing::host_function;
using watchdog::testing::kCallback;
using watchdog::testing::kContext;
using watchdog::testing::kMain;
using watchdog::testing::kOther;
using watchdog::testing::kStream1;
using watchdog::testing::kStream2;
using watchdog::testing::SnapshotBuilder;
using board::GilState;
using board::Role;

// A second context, its callback thread, and two more streams (one in each context).
constexpr std::uint64_t kContext2 = 0x31;
constexpr int kCallback2 = 103;
constexpr std::uint64_t kStream3 = 0x40;  // in kContext2
constexpr std::uint64_t kStream4 = 0x50;  // in kContext
constexpr std::uint64_t kEvent = 0x60;

// The profile's "held back while a host function runs", as the classifier asks it.
bool blocks_while_host_function_runs(std::string_view entry_point) {
  return entry_point == "cuMemAlloc" || entry_point == "cuMemFree";
}

PseudoLock stream(checkers::Handle handle, checkers::Handle context = kContext) { return PseudoLock::stream_completion(context, handle); }
const PseudoLock kGil = PseudoLock::gil();
const PseudoLock kLock = PseudoLock::user_lock(0x99, "results");

board::HostFunctionRecord host_function_in(std::uint64_t context, std::uint64_t id, std::uint64_t on_stream,
                                           board::HostFunctionKind kind = board::HostFunctionKind::Native) {
  board::HostFunctionRecord record = host_function(id, on_stream, kind);
  record.context = context;
  return record;
}

// The callback thread of kContext running host function #3 on `on_stream`.
ThreadSnapshot& running_host_function(SnapshotBuilder& builder, std::uint64_t on_stream,
                                      board::HostFunctionKind kind = board::HostFunctionKind::Python) {
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, on_stream, kind));
  return callback;
}

// The main thread, holding the GIL or not, waiting in `entry_point`.
ThreadSnapshot& main_waiting_in(SnapshotBuilder& builder, bool holds_gil, board::CallRecord waiting_in) {
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = holds_gil ? GilState::Holds : GilState::Released;
  main_thread.board->calls.push_back(std::move(waiting_in));
  return main_thread;
}

struct Shape {
  const char* name;  // a test name
  DeadlockClass expected;
  std::vector<PseudoLock> (*core_cycle)();
  Snapshot (*hang)();
};

const Shape kShapes[] = {
    {"GilAndStreamCompletion", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, stream(kStream1)}; },
     [] { return watchdog::testing::gil_inversion_snapshot(); }},
    {"GilAndContextCompletion", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, PseudoLock::context_completion(kContext)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, true, call("cuCtxSynchronize", 0));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       return builder.snapshot();
     }},
    // The legacy stream waits for every blocking stream: both take it as the whole context
    // (checkers/core/synchronizing_calls.h).
    {"GilAndTheLegacyStream", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, PseudoLock::context_completion(kContext)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, true, call("cuStreamSynchronize", 0x1));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       return builder.snapshot();
     }},
    {"GilAndAnEventOfTheStream", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, stream(kStream1)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, true, call("cudaEventSynchronize", 0, kEvent));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       builder.snapshot().events.push_back(board::EventRecord{kEvent, kStream1, kContext, 10});
       return builder.snapshot();
     }},
    {"GilAndHostFunctionLock", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, PseudoLock::host_function_lock(kContext)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, true, call("cuMemAlloc_v2", 0));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       return builder.snapshot();
     }},
    // A native host function on S2 cannot start while a Python one holds the callback thread.
    {"GilAndAHostFunctionQueuedBehindAPythonOne", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, stream(kStream2), PseudoLock::callback_thread(kContext)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, true, call("cuStreamSynchronize", kStream2));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       builder.snapshot().pending_host_functions.push_back(
           host_function(4, kStream2, board::HostFunctionKind::Native));
       return builder.snapshot();
     }},
    {"GilAndUserLockAndStream", DeadlockClass::gil_driver_inversion,
     [] { return std::vector{kGil, kLock, stream(kStream1)}; },
     [] {
       SnapshotBuilder builder;
       ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
       main_thread.board->gil_state = GilState::Holds;
       main_thread.board->waiting_lock = board::LockRecord{0x99, "results", 5};
       ThreadSnapshot& worker = builder.board_thread(kOther, Role::OtherNative);
       worker.board->held_locks.push_back(board::LockRecord{0x99, "results", 1});
       worker.board->calls.push_back(call("cuStreamSynchronize", kStream1));
       running_host_function(builder, kStream1).board->gil_state = GilState::Waiting;
       return builder.snapshot();
     }},
    {"SelfWaitOnItsOwnStream", DeadlockClass::callback_self_wait,
     [] { return std::vector{stream(kStream1)}; },
     [] {
       SnapshotBuilder builder;
       running_host_function(builder, kStream1).board->calls.push_back(call("cuStreamSynchronize", kStream1));
       return builder.snapshot();
     }},
    {"SelfWaitOnItsContext", DeadlockClass::callback_self_wait,
     [] { return std::vector{PseudoLock::context_completion(kContext)}; },
     [] {
       SnapshotBuilder builder;
       running_host_function(builder, kStream1).board->calls.push_back(call("cudaDeviceSynchronize", 0));
       return builder.snapshot();
     }},
    {"SelfWaitOnAnEventRecordedAfterIt", DeadlockClass::callback_self_wait,
     [] { return std::vector{stream(kStream1)}; },
     [] {
       SnapshotBuilder builder;
       running_host_function(builder, kStream1).board->calls.push_back(call("cuEventSynchronize", 0, kEvent));
       builder.snapshot().events.push_back(board::EventRecord{kEvent, kStream1, kContext, 10});
       return builder.snapshot();
     }},
    {"TwoHostFunctionsOfOneContext", DeadlockClass::callback_serialization,
     [] { return std::vector{PseudoLock::callback_thread(kContext), stream(kStream2)}; },
     [] {
       SnapshotBuilder builder;
       running_host_function(builder, kStream1).board->calls.push_back(call("cuStreamSynchronize", kStream2));
       builder.snapshot().pending_host_functions.push_back(host_function(4, kStream2));
       return builder.snapshot();
     }},
    // Each context's host function waits for a stream of the other context, whose next host function
    // cannot start on that context's busy callback thread. The core once called it unknown and the
    // watchdog callback-serialization; both now say serialization (deadlock_class.cpp says why).
    {"TwoContextsCallbackThreads", DeadlockClass::callback_serialization,
     [] {
       return std::vector{PseudoLock::callback_thread(kContext), stream(kStream2, kContext2),
                          PseudoLock::callback_thread(kContext2), stream(kStream4)};
     },
     [] {
       SnapshotBuilder builder;
       ThreadSnapshot& first = builder.board_thread(kCallback, Role::DriverCallback, kContext);
       first.board->host_functions.push_back(host_function_in(kContext, 3, kStream1));
       board::CallRecord waits_for_second = call("cuStreamSynchronize", kStream2);
       waits_for_second.context = kContext2;
       first.board->calls.push_back(waits_for_second);
       ThreadSnapshot& second = builder.board_thread(kCallback2, Role::DriverCallback, kContext2);
       second.board->host_functions.push_back(host_function_in(kContext2, 5, kStream3));
       board::CallRecord waits_for_first = call("cuStreamSynchronize", kStream4);
       waits_for_first.context = kContext;
       second.board->calls.push_back(waits_for_first);
       builder.snapshot().pending_host_functions.push_back(host_function_in(kContext2, 6, kStream2));
       builder.snapshot().pending_host_functions.push_back(host_function_in(kContext, 4, kStream4));
       return builder.snapshot();
     }},
    {"HostFunctionLockAndUserLock", DeadlockClass::callback_driver_lock,
     [] { return std::vector{kLock, PseudoLock::host_function_lock(kContext)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, false, call("cuMemFree_v2", 0))
           .board->held_locks.push_back(board::LockRecord{0x99, "registry", 5});
       running_host_function(builder, kStream1).board->waiting_lock = board::LockRecord{0x99, "registry", 6};
       return builder.snapshot();
     }},
    {"UserLockAndStream", DeadlockClass::user_lock_inversion,
     [] { return std::vector{kLock, stream(kStream1)}; },
     [] {
       SnapshotBuilder builder;
       main_waiting_in(builder, false, call("cuStreamSynchronize", kStream1))
           .board->held_locks.push_back(board::LockRecord{0x99, "results", 5});
       running_host_function(builder, kStream1).board->waiting_lock = board::LockRecord{0x99, "results", 6};
       return builder.snapshot();
     }},
    {"UserLocksOnly", DeadlockClass::user_lock_inversion,
     [] { return std::vector{kLock, PseudoLock::user_lock(0x98, "jobs")}; },
     [] {
       SnapshotBuilder builder;
       ThreadSnapshot& one = builder.board_thread(kMain, Role::Main);
       one.board->held_locks.push_back(board::LockRecord{0x99, "results", 1});
       one.board->waiting_lock = board::LockRecord{0x98, "jobs", 2};
       ThreadSnapshot& two = builder.board_thread(kOther, Role::OtherNative);
       two.board->held_locks.push_back(board::LockRecord{0x98, "jobs", 1});
       two.board->waiting_lock = board::LockRecord{0x99, "results", 2};
       return builder.snapshot();
     }},
    // No driver in the cycle: a native lock taken with the GIL held, its holder waiting for the GIL.
    {"GilAndUserLock", DeadlockClass::user_lock_inversion,
     [] { return std::vector{kGil, kLock}; },
     [] {
       SnapshotBuilder builder;
       ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
       main_thread.board->gil_state = GilState::Holds;
       main_thread.board->waiting_lock = board::LockRecord{0x99, "results", 5};
       ThreadSnapshot& worker = builder.board_thread(kOther, Role::Python);
       worker.board->held_locks.push_back(board::LockRecord{0x99, "results", 1});
       worker.board->gil_state = GilState::Waiting;
       return builder.snapshot();
     }},
    // Host functions of two contexts, both running, each waiting for the other's stream: no callback
    // thread is in the way and the taxonomy has no name for it.
    {"RunningHostFunctionsOfTwoContexts", DeadlockClass::unknown,
     [] { return std::vector{stream(kStream1), stream(kStream3, kContext2)}; },
     [] {
       SnapshotBuilder builder;
       ThreadSnapshot& first = builder.board_thread(kCallback, Role::DriverCallback, kContext);
       first.board->host_functions.push_back(host_function_in(kContext, 3, kStream1));
       board::CallRecord waits_for_second = call("cuStreamSynchronize", kStream3);
       waits_for_second.context = kContext2;
       first.board->calls.push_back(waits_for_second);
       ThreadSnapshot& second = builder.board_thread(kCallback2, Role::DriverCallback, kContext2);
       second.board->host_functions.push_back(host_function_in(kContext2, 5, kStream3));
       second.board->calls.push_back(call("cuStreamSynchronize", kStream1));
       return builder.snapshot();
     }},
};

// ctest shows the parameter; by its name, not its bytes.
void PrintTo(const Shape& shape, std::ostream* out) { *out << shape.name; }

class SharedCycleShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(SharedCycleShapes, CoreAndWatchdogNameTheShapeAlike) {
  const Shape& shape = GetParam();
  EXPECT_EQ(to_string(checkers::classify_cycle(shape.core_cycle())), to_string(shape.expected)) << "core";
  const watchdog::Classification hang = watchdog::classify(shape.hang(), &blocks_while_host_function_runs);
  EXPECT_FALSE(hang.cycle.empty()) << "the watchdog found no cycle";
  EXPECT_EQ(to_string(hang.deadlock_class), to_string(shape.expected)) << "watchdog";
}

INSTANTIATE_TEST_SUITE_P(Shapes, SharedCycleShapes, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<Shape>& info) { return std::string(info.param.name); });

// Every class the core can predict has a shape above, so a class added to the table without rules on
// both sides shows up here.
TEST(SharedCycleShapesTable, CoversEveryClassTheCoreCanPredict) {
  for (const DeadlockClassInfo& row : kDeadlockClasses) {
    bool covered = false;
    for (const Shape& shape : kShapes) covered |= shape.expected == row.value;
    EXPECT_EQ(covered, row.predicted_by_core) << row.name;
  }
}

// What the core cannot see: the same cycle during finalization is the watchdog's finalization, and
// the core, which never returns a class the table marks as not predicted, still names the cycle.
TEST(SharedCycleShapesTable, FinalizationIsTheWatchdogsAlone) {
  Snapshot finalizing = watchdog::testing::gil_inversion_snapshot();
  finalizing.interpreter_finalizing = true;
  EXPECT_EQ(watchdog::classify(finalizing, &blocks_while_host_function_runs).deadlock_class,
            DeadlockClass::finalization);
  for (const Shape& shape : kShapes) {
    EXPECT_TRUE(deadlock_class_info(checkers::classify_cycle(shape.core_cycle())).predicted_by_core) << shape.name;
  }
}

}  // namespace
}  // namespace gilsan
