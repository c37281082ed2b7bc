// The scenario child's Python-lock hooks (checkers/sources/python_lock_hooks.h) as traced locks call
// them: what they write on the board, what the child's Sanitizer makes of them, and the install code
// another front end runs (ctypes.PyDLL on this executable's exports). The Python side's own logic is
// tested by python_lock_tracing_test.py.
#include "harness/child/python_api.h"
// python_api.h first: Python.h must precede the standard headers.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "checkers/sources/python_lock_hooks.h"
#include "checkers/sources/python_lock_tracing_source.h"
#include "checkers/sources/sanitizer_hooks.h"
#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/board/board_writer.h"
#include "harness/child/scenario_sanitizer.h"
#include "harness/runner/sanitizer_findings.h"

extern "C" const GilsanSanitizerHooks* gilsan_sanitizer_hooks();

namespace gilsan {
namespace {

constexpr unsigned long long kContext = 0x7000;
constexpr unsigned long long kStream = 0x7100;

// One board for the whole test process: the writer attaches once and for good.
board::BoardRegion& test_board() {
  static board::BoardRegion region = [] {
    board::BoardRegion created = board::BoardRegion::create();
    ::setenv(board::kBoardEnvironmentVariable, created.path().c_str(), 1);
    return created;
  }();
  EXPECT_TRUE(board::attach());
  return region;
}

board::ThreadRecord my_slot() {
  board::BoardReader reader(test_board().board());
  const std::optional<board::ThreadRecord> slot = reader.thread(static_cast<int>(::syscall(SYS_gettid)));
  EXPECT_TRUE(slot.has_value());
  return slot.value_or(board::ThreadRecord{});
}

std::vector<std::string> held_lock_names() {
  std::vector<std::string> names;
  for (const board::LockRecord& lock : my_slot().held_locks) names.push_back(lock.name);
  return names;
}

TEST(PythonLockHooks, BoardRecordsTheWaitAndTheHolder) {
  test_board();
  gilsan_lock_acquire_begin(0xA1, "Lock at s.py:5", 1);
  const board::ThreadRecord waiting = my_slot();
  ASSERT_TRUE(waiting.waiting_lock.has_value());
  EXPECT_EQ(waiting.waiting_lock->id, 0xA1u);
  EXPECT_EQ(waiting.waiting_lock->name, "Lock at s.py:5");
  EXPECT_TRUE(waiting.held_locks.empty());

  gilsan_lock_acquired(0xA1, "Lock at s.py:5");
  EXPECT_FALSE(my_slot().waiting_lock.has_value());
  EXPECT_EQ(held_lock_names(), std::vector<std::string>{"Lock at s.py:5"});

  // A try-lock that fails: never a wait on the board, nothing held.
  gilsan_lock_acquire_begin(0xA2, "Lock at s.py:6", 0);
  EXPECT_FALSE(my_slot().waiting_lock.has_value());
  gilsan_lock_acquire_failed(0xA2);
  // A timed acquire that gives up: the wait ends, nothing more held.
  gilsan_lock_acquire_begin(0xA3, "Lock at s.py:7", 1);
  gilsan_lock_acquire_failed(0xA3);
  EXPECT_FALSE(my_slot().waiting_lock.has_value());
  EXPECT_EQ(held_lock_names(), std::vector<std::string>{"Lock at s.py:5"});

  // A name longer than the board keeps keeps its site.
  const char* long_name = "RLock of Condition at a_rather_long_scenario_whose_name_goes_on_and_on.py:123";
  gilsan_lock_acquire_begin(0xA4, long_name, 1);
  EXPECT_EQ(my_slot().waiting_lock->name, "a_rather_long_scenario_whose_name_goes_on_and_on.py:123");
  gilsan_lock_acquired(0xA4, long_name);
  EXPECT_EQ(held_lock_names(),
            (std::vector<std::string>{"Lock at s.py:5", "a_rather_long_scenario_whose_name_goes_on_and_on.py:123"}));

  gilsan_lock_released(0xA1);
  gilsan_lock_released(0xA4);
  EXPECT_TRUE(my_slot().held_locks.empty());
}

TEST(PythonLockHooks, SanitizerPredictsTheCycleThroughAUserLock) {
  const SanitizerReportFolder folder;
  for (const auto& [name, value] : folder.child_environment()) ::setenv(name.c_str(), value.c_str(), 1);
  ::unsetenv("GILSAN_OPTIONS");
  start_scenario_sanitizer();
  const GilsanSanitizerHooks* hooks = gilsan_sanitizer_hooks();
  ASSERT_NE(hooks, nullptr);
  hooks->driver_opened(0, "libcuda.so.1");  // the module's own calls are the driver calls seen

  // A Python host function takes the lock and finishes.
  GilsanSanitizerHostFunction host_function{0x1234, 1, "s.py:3 takes_the_lock", kContext, kStream, 1};
  hooks->host_function_enqueued(&host_function);
  std::thread callback([&] {
    hooks->host_function_begin(&host_function);
    gilsan_lock_acquire_begin(0xB1, "Lock at s.py:1", 1);
    gilsan_lock_acquired(0xB1, "Lock at s.py:1");
    gilsan_lock_released(0xB1);
    hooks->host_function_end();
  });
  callback.join();
  // Then the main thread synchronizes that stream, GIL released, holding the lock.
  gilsan_lock_acquire_begin(0xB1, "Lock at s.py:1", 1);
  gilsan_lock_acquired(0xB1, "Lock at s.py:1");
  hooks->call_enter("cuStreamSynchronize", kContext, kStream, 0);
  hooks->call_exit("cuStreamSynchronize", 0);
  gilsan_lock_released(0xB1);

  // A timed acquire that gave up holds nothing: the later orders M -> N here and N -> M elsewhere
  // would be a cycle only if it did.
  gilsan_lock_acquire_begin(0xC1, "M", 1);
  gilsan_lock_acquire_failed(0xC1);
  gilsan_lock_acquire_begin(0xC2, "N", 1);
  gilsan_lock_acquired(0xC2, "N");
  gilsan_lock_released(0xC2);
  // A destroyed lock's id starts afresh: P -> Q, then P is gone, then Q -> a new lock at P's id.
  gilsan_lock_acquire_begin(0xD1, "P", 1);
  gilsan_lock_acquired(0xD1, "P");
  gilsan_lock_acquire_begin(0xD2, "Q", 1);
  gilsan_lock_acquired(0xD2, "Q");
  gilsan_lock_released(0xD2);
  gilsan_lock_released(0xD1);
  gilsan_lock_destroyed(0xD1);
  std::thread other([] {
    for (const auto& [outer, inner] : {std::pair{0xC2ull, 0xC1ull}, std::pair{0xD2ull, 0xD1ull}}) {
      gilsan_lock_acquire_begin(outer, "outer", 1);
      gilsan_lock_acquired(outer, "outer");
      gilsan_lock_acquire_begin(inner, "inner", 1);
      gilsan_lock_acquired(inner, "inner");
      gilsan_lock_released(inner);
      gilsan_lock_released(outer);
    }
  });
  other.join();

  EXPECT_EQ(finish_scenario_sanitizer(0), 66);
  const SanitizerFindings findings = folder.read();
  EXPECT_EQ(findings.checkers, std::vector<std::string>{"lock-order-cycle"}) << findings.text;
  EXPECT_NE(findings.text.find("(user-lock-inversion)"), std::string::npos) << findings.text;
  EXPECT_NE(findings.text.find("lock 'Lock at s.py:1' (0xb1)"), std::string::npos) << findings.text;
  EXPECT_NE(findings.text.find("completion of stream 0x7100"), std::string::npos) << findings.text;
}

// What the injected library would run: the embedded source, installed through ctypes.PyDLL on the
// program's own exports (this test executable has ENABLE_EXPORTS, like `gilsan`).
TEST(PythonLockHooks, InstallCodeTracesThreadingLocksThroughCtypes) {
  test_board();
  Py_InitializeEx(0);
  ASSERT_EQ(PyRun_SimpleString(python_lock_tracing_install_code("").c_str()), 0);
  ASSERT_EQ(PyRun_SimpleString("import threading\n"
                               "assert '_gilsan_install_lock_tracing' not in globals()\n"
                               "lock = threading.Lock()\n"
                               "assert 'gilsan-traced Lock' in repr(lock), repr(lock)\n"
                               "lock.acquire()\n"),
            0);
  EXPECT_EQ(held_lock_names(), std::vector<std::string>{"Lock at <string>:3"});
  ASSERT_EQ(PyRun_SimpleString("condition = threading.Condition()\n"
                               "condition.acquire()\n"),
            0);
  // The tracing's own Condition class makes the RLock; the name is still the standard library's.
  EXPECT_EQ(held_lock_names(), (std::vector<std::string>{"Lock at <string>:3", "RLock of Condition at <string>:1"}));
  ASSERT_EQ(PyRun_SimpleString("condition.release()\n"
                               "lock.release()\n"),
            0);
  EXPECT_TRUE(held_lock_names().empty());
  Py_FinalizeEx();
}

}  // namespace
}  // namespace gilsan
