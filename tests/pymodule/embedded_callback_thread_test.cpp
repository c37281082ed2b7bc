// The kept thread state of a driver callback thread (callback_thread_state.h) when the thread ends:
// the simulated driver never ends its threads (they return to its pool), so these tests play the
// driver thread with a std::thread that runs the trampoline's entry sequence and then exits.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "harness/pymodule/callback_thread_state.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/module_stats.h"
#include "tests/pymodule/embedded_interpreter.h"

namespace gilsan::pymodule {
namespace {

// What a trampoline does around a callable; returns whether it entered Python.
bool run_like_a_trampoline(const char* source) {
  if (!try_enter_python()) return false;
  {
    const CallbackPython python;
    EXPECT_EQ(PyRun_SimpleString(source), 0);
  }
  leave_python();
  return true;
}

TEST(EmbeddedCallbackThread, AThreadKeepsOneStateAndRetiresItWhenItEnds) {
  test::start_interpreter();
  const unsigned long long created = stats().callback_thread_states_created.load();
  const unsigned long long retired = stats().callback_thread_states_retired.load();
  PyThreadState* main_state = PyEval_SaveThread();
  std::thread driver_thread([] {
    // The state's dict outlives one call: the second call sees what the first stored.
    EXPECT_TRUE(run_like_a_trampoline("import _thread\nkept = _thread._local()\n"));
    EXPECT_TRUE(run_like_a_trampoline("kept.value = 1\n"));
    EXPECT_TRUE(run_like_a_trampoline("assert kept.value == 1, 'the thread state was not kept'\n"));
  });
  driver_thread.join();
  PyEval_RestoreThread(main_state);
  EXPECT_EQ(stats().callback_thread_states_created.load(), created + 1);
  EXPECT_EQ(stats().callback_thread_states_retired.load(), retired + 1);
  // The retired state is still in the interpreter's list: Py_FinalizeEx clears and frees it.
  EXPECT_EQ(Py_FinalizeEx(), 0);
}

TEST(EmbeddedCallbackThread, ANestedEntryOnTheSameThreadLeavesTheKeptStateAttached) {
  test::start_interpreter();
  PyThreadState* main_state = PyEval_SaveThread();
  std::thread driver_thread([] {
    ASSERT_TRUE(try_enter_python());
    {
      const CallbackPython outer;
      EXPECT_EQ(PyRun_SimpleString("import _thread\nkept = _thread._local()\nkept.value = 7\n"), 0);
      PyThreadState* const attached = PyThreadState_Get();
      EXPECT_TRUE(run_like_a_trampoline("assert kept.value == 7\n"));
      EXPECT_EQ(PyThreadState_Get(), attached);  // the inner exit did not detach or delete it
      EXPECT_EQ(PyRun_SimpleString("assert kept.value == 7\n"), 0);
    }
    leave_python();
  });
  driver_thread.join();
  PyEval_RestoreThread(main_state);
  EXPECT_EQ(Py_FinalizeEx(), 0);
}

TEST(EmbeddedCallbackThread, AThreadThatEndsAfterFinalizationTouchesNoPython) {
  test::start_interpreter();
  std::mutex mutex;
  std::condition_variable changed;
  bool kept = false;
  bool finalized = false;
  bool entered_after = true;
  PyThreadState* main_state = PyEval_SaveThread();
  std::thread driver_thread([&] {
    EXPECT_TRUE(run_like_a_trampoline("pass"));
    std::unique_lock lock(mutex);
    kept = true;
    changed.notify_all();
    changed.wait(lock, [&] { return finalized; });
    entered_after = run_like_a_trampoline("pass");
  });  // ends after Py_FinalizeEx: its thread_local destructor must not call into Python
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return kept; });
  }
  PyEval_RestoreThread(main_state);
  close_gate_at_exit();  // what the module's atexit hook does
  EXPECT_EQ(Py_FinalizeEx(), 0);
  {
    std::lock_guard lock(mutex);
    finalized = true;
    changed.notify_all();
  }
  driver_thread.join();
  EXPECT_FALSE(entered_after);
  EXPECT_GE(stats().callback_thread_states_retired.load(), 1u);
}

}  // namespace
}  // namespace gilsan::pymodule
