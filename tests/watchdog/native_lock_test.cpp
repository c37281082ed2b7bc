// Native locks in the watchdog's evidence: the interposer's board record of a wait (harness/nativelocks)
// becomes a lock node with its real holder, named from its addresses; a lock the driver takes inside
// a call the board shows stays that call's wait.
#include <unistd.h>

#include <algorithm>
#include <gtest/gtest.h>
#include <memory>

#include "harness/symbols/module_owner.h"
#include "harness/watchdog/classifier.h"
#include "harness/watchdog/lock_description.h"
#include "harness/watchdog/symbolizer.h"
#include "tests/watchdog/child_runner.h"
#include "tests/watchdog/snapshot_fixtures.h"

// A global the symbolizer must name, as it names a library's static mutex.
extern "C" {
[[gnu::used]] long gilsan_native_lock_test_global[4] = {1, 2, 3, 4};
}

namespace gilsan::watchdog::testing {
namespace {

using board::GilState;
using board::LockKind;
using board::Role;

constexpr std::uint64_t kMutex = 0x7f0000001000;

std::size_t inferred_edges_of_the_cycle(const Classification& result) {
  return static_cast<std::size_t>(
      std::count_if(result.cycle.begin(), result.cycle.end(), [](const WaitEdge& edge) { return edge.inferred; }));
}

board::LockRecord recorded_native_wait(int holder_tid, LockKind kind = LockKind::NativeMutex) {
  board::LockRecord lock;
  lock.id = kMutex;
  lock.since_ns = 6;
  lock.kind = kind;
  lock.holder_tid = holder_tid;
  lock.call_site = 0x7f0000002345;
  return lock;
}

ThreadSnapshot::NativeLockNames native_lock_names_in(const std::string& call_site_module) {
  ThreadSnapshot::NativeLockNames names;
  names.lock = frame("registry_lock", "/opt/lib/libregistry.so");
  names.lock.address = kMutex;
  names.call_site = frame("registry_count", call_site_module);
  return names;
}

// The main thread waits for stream 1 (the GIL released); the stream's host function waits on the
// callback thread for a native mutex whose holder, as the mutex says, is `holder`.
Snapshot native_mutex_inversion(int holder, const std::string& call_site_module = "/opt/lib/libregistry.so") {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->gil_state = GilState::Released;
  callback.board->waiting_lock = recorded_native_wait(holder);
  callback.waiting_native_lock = native_lock_names_in(call_site_module);
  return builder.snapshot();
}

TEST(NativeLocks, TheHolderTheMutexNamesClosesTheCycleWithNothingInferred) {
  Classification result = classify(native_mutex_inversion(kMain), &test_profile_blocks);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::user_lock_inversion);
  ASSERT_EQ(result.cycle.size(), 4u);
  EXPECT_EQ(inferred_edges_of_the_cycle(result), 0u);
  const WaitNode* lock = result.graph.node("lock:0x7f0000001000");
  ASSERT_NE(lock, nullptr);
  EXPECT_EQ(lock->label, "native mutex registry_lock in libregistry.so (0x7f0000001000)");
  std::vector<std::string> texts;
  for (const WaitEdge& edge : result.cycle) texts.push_back(edge.text);
  EXPECT_NE(std::find(texts.begin(), texts.end(),
                      "thread 101 (callback thread of context 0x30) waits for native mutex registry_lock in "
                      "libregistry.so (0x7f0000001000), asked for in registry_count (libregistry.so)"),
            texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(),
                      "native mutex registry_lock in libregistry.so (0x7f0000001000) is held by thread 100 (main)"),
            texts.end());
}

TEST(NativeLocks, AnRwlockHeldByReadersFallsBackToTheBlockedThreadsAndSaysSo) {
  Snapshot snapshot = native_mutex_inversion(0);  // readers hold it: glibc names no writer
  snapshot.threads[1].board->waiting_lock->kind = LockKind::NativeReadLock;
  Classification result = classify(snapshot, &test_profile_blocks);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(inferred_edges_of_the_cycle(result), 1u);  // the holder, by elimination
  const WaitNode* lock = result.graph.node("lock:0x7f0000001000");
  ASSERT_NE(lock, nullptr);
  EXPECT_EQ(lock->label, "native rwlock registry_lock in libregistry.so (0x7f0000001000)");
}

TEST(NativeLocks, ADriverMutexInsideADriverCallIsThatCallsWait) {
  // The callback thread waits in a driver call the profile holds back, and inside it for a mutex of
  // the driver's own: the call's wait is the model's, and the mutex adds no edge of its own.
  Snapshot snapshot = native_mutex_inversion(kMain, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  snapshot.threads[1].board->calls.push_back(call("cuMemFree_v2", 0));
  Classification result = classify(snapshot, &test_profile_blocks);
  EXPECT_EQ(result.graph.node("lock:0x7f0000001000"), nullptr);
  const ThreadFacts* callback = result.facts.find(kCallback);
  ASSERT_NE(callback, nullptr);
  EXPECT_EQ(callback->waiting_lock_owner, "the driver");
  EXPECT_EQ(callback->waiting_lock_site, "asked for in registry_count (libcuda.so.1), a lock of the driver's own");
}

TEST(NativeLocks, DescriptionsOfHeapLocksAndOfLocksNobodyNamed) {
  board::LockRecord lock = recorded_native_wait(kMain);
  EXPECT_EQ(describe_lock(lock, nullptr), "native mutex 0x7f0000001000");
  ThreadSnapshot::NativeLockNames heap;
  heap.lock.address = kMutex;
  EXPECT_EQ(describe_lock(lock, &heap), "native mutex 0x7f0000001000 (heap)");
  EXPECT_EQ(describe_call_site(heap), "");
  lock.kind = LockKind::NativeWriteLock;
  EXPECT_EQ(std::string(lock_wait_words(lock.kind)), "waits to write");
  board::LockRecord python_lock{0x99, "results", 5};
  EXPECT_EQ(describe_lock(python_lock, nullptr), "results (0x99)");
  EXPECT_EQ(symbols::owner_of_module("/usr/lib/libpython3.12.so.1.0"), "the interpreter");
  EXPECT_EQ(symbols::owner_of_module("/opt/gilsan/lib/libgilsan_simcuda.so"), "the driver");
  EXPECT_EQ(symbols::owner_of_module("/opt/lib/libregistry.so"), "");
  EXPECT_EQ(symbols::owner_of_module("/usr/bin/python3.11"), "the interpreter");  // libpython linked in
  EXPECT_EQ(symbols::owner_of_module("/usr/bin/python3.13t"), "the interpreter");
  EXPECT_EQ(symbols::owner_of_module("/opt/lib/python_helpers.so"), "");
}

TEST(NativeLocks, TheSymbolizerNamesAGlobalAndLeavesHeapMemoryUnnamed) {
  Symbolizer symbolizer = Symbolizer::for_process(::getpid());
  const auto global = reinterpret_cast<std::uintptr_t>(&gilsan_native_lock_test_global[2]);
  NativeFrame named = symbolizer.name_data(global);
  EXPECT_EQ(named.symbol, "gilsan_native_lock_test_global");
  EXPECT_EQ(named.symbol_offset, 2 * sizeof(long));
  char self[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  EXPECT_EQ(named.module, self);
  auto on_the_heap = std::make_unique<long[]>(1024);
  EXPECT_EQ(symbolizer.name_data(reinterpret_cast<std::uintptr_t>(on_the_heap.get())).symbol, "");
}

}  // namespace
}  // namespace gilsan::watchdog::testing

namespace gilsan::watchdog::testing {
namespace {

// A thread in pthread_cond_wait, as the interposer records it, asked for in `call_site_module`.
ThreadSnapshot& condition_waiter(SnapshotBuilder& builder, int tid, board::Role role, const std::string& call_site_module) {
  ThreadSnapshot& thread = builder.board_thread(tid, role, kContext);
  thread.board->waiting_lock = recorded_native_wait(0, board::LockKind::NativeCondition);
  ThreadSnapshot::NativeLockNames names;
  names.lock = frame("gate_opened", "/opt/lib/libgate.so");
  names.lock.address = kMutex;
  names.call_site = frame("gate_wait", call_site_module);
  thread.waiting_native_lock = names;
  return thread;
}

TEST(NativeConditions, AHostFunctionAtAGateWaitsForANotificationThroughItsNotifier) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, board::Role::Main);
  main_thread.board->gil_state = board::GilState::Released;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  ThreadSnapshot& callback = condition_waiter(builder, kCallback, board::Role::DriverCallback, "/opt/lib/libgate.so");
  callback.board->host_functions.push_back(host_function(3, kStream1));
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_self_wait);
  ASSERT_EQ(result.cycle.size(), 3u);
  EXPECT_EQ(inferred_edges_of_the_cycle(result), 1u);  // the notifier, never a holder
  for (const WaitNode& node : result.graph.nodes()) EXPECT_NE(node.kind, NodeKind::user_lock) << node.id;
  const ThreadFacts* waiter = result.facts.find(kCallback);
  ASSERT_NE(waiter, nullptr);
  EXPECT_EQ(waiter->waiting_lock_label, "native condition variable gate_opened in libgate.so (0x7f0000001000)");
}

TEST(NativeConditions, AnIdleWorkersWaitIsLeftOut) {
  // No Python stack, no host function: a pool's worker waiting for work is no part of a hang.
  SnapshotBuilder builder;
  condition_waiter(builder, kOther, board::Role::Unknown, "/opt/lib/libgate.so");
  Classification result = classify(builder.snapshot(), &test_profile_blocks);
  const ThreadFacts* worker = result.facts.find(kOther);
  ASSERT_NE(worker, nullptr);
  EXPECT_FALSE(worker->waiting_lock.has_value());
  EXPECT_TRUE(result.graph.edges_from("thread:102").empty());
}

TEST(NativeConditions, PythonCodeWaitingThroughALibraryIsDrawnButNotTheDriversOwnWait) {
  SnapshotBuilder builder;
  ThreadSnapshot& python = condition_waiter(builder, kOther, board::Role::Python, "/opt/lib/libgate.so");
  python.python_stack = std::vector<PythonFrame>{{"app.py", 7, "wait_for_gate"}};
  ThreadSnapshot& driver = condition_waiter(builder, kCallback, board::Role::DriverCallback,
                                            "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  driver.board->host_functions.push_back(host_function(3, kStream1));
  SnapshotFacts facts = derive_facts(builder.snapshot());
  ASSERT_NE(facts.find(kOther), nullptr);
  EXPECT_TRUE(facts.find(kOther)->waiting_lock.has_value());
  ASSERT_NE(facts.find(kCallback), nullptr);
  EXPECT_FALSE(facts.find(kCallback)->waiting_lock.has_value());
}

}  // namespace
}  // namespace gilsan::watchdog::testing
