// The small parsers and name rules of the watchdog: /proc lines, maps lines, faulthandler dumps,
// entry-point names, and what native frames say a thread waits for.
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/watchdog/frame_inference.h"
#include "harness/watchdog/proc_threads.h"
#include "harness/watchdog/python_stacks.h"
#include "harness/watchdog/symbolizer.h"
#include "harness/watchdog/thread_facts.h"

namespace gilsan::watchdog {
namespace {

NativeFrame frame(const std::string& symbol) {
  NativeFrame result;
  result.symbol = symbol;
  return result;
}

TEST(ProcParsers, StatLineWithParenthesesInTheName) {
  ProcThreadState state;
  ASSERT_TRUE(parse_stat_line("1234 (we (ird) name) S 1 1234 1234 0 -1", state));
  EXPECT_EQ(state.comm, "we (ird) name");
  EXPECT_EQ(state.state, 'S');
  EXPECT_FALSE(parse_stat_line("garbage", state));
}

TEST(ProcParsers, SyscallLine) {
  SyscallState futex = parse_syscall_line("202 0x7f 0x80 0x0 0x0 0x0 0x0 0x7ffd 0x7f12");
  EXPECT_EQ(futex.kind, SyscallState::Kind::InSyscall);
  EXPECT_EQ(futex.number, 202);
  EXPECT_EQ(parse_syscall_line("running").kind, SyscallState::Kind::Running);
  EXPECT_EQ(parse_syscall_line("-1 0x7ffd 0x7f12").kind, SyscallState::Kind::NotInSyscall);
  EXPECT_EQ(parse_syscall_line("").kind, SyscallState::Kind::Unknown);
}

TEST(ProcParsers, WaitingAndSleepingSyscalls) {
  EXPECT_EQ(syscall_name(SYS_futex), "futex");
  EXPECT_TRUE(is_waiting_syscall(SYS_futex));
  EXPECT_FALSE(is_waiting_syscall(SYS_clock_nanosleep));
  EXPECT_EQ(syscall_name(100000), "syscall 100000");
  ProcThreadState state;
  state.state = 'S';
  state.syscall = SyscallState{SyscallState::Kind::InSyscall, SYS_futex};
  EXPECT_TRUE(looks_blocked(state));
  state.syscall.number = SYS_clock_nanosleep;
  EXPECT_FALSE(looks_blocked(state));
  state.state = 'D';
  EXPECT_TRUE(looks_blocked(state));
}

TEST(ProcParsers, ThisProcessHasThreads) {
  auto tids = list_threads(::getpid());
  ASSERT_FALSE(tids.empty());
  auto state = read_thread_state(::getpid(), tids.front());
  ASSERT_TRUE(state.has_value());
  EXPECT_FALSE(state->comm.empty());
  EXPECT_TRUE(list_threads(0x7ffffff0).empty());
}

TEST(MapsParser, LinesWithAndWithoutPaths) {
  auto mapped = parse_maps_line("7f12a000-7f12b000 r-xp 00002000 08:01 1234   /usr/lib/lib with space.so");
  ASSERT_TRUE(mapped.has_value());
  EXPECT_EQ(mapped->start, 0x7f12a000u);
  EXPECT_EQ(mapped->end, 0x7f12b000u);
  EXPECT_EQ(mapped->file_offset, 0x2000u);
  EXPECT_EQ(mapped->path, "/usr/lib/lib with space.so");
  auto anonymous = parse_maps_line("7f12a000-7f12b000 rw-p 00000000 00:00 0");
  ASSERT_TRUE(anonymous.has_value());
  EXPECT_EQ(anonymous->path, "");
  EXPECT_FALSE(parse_maps_line("not a maps line").has_value());
}

TEST(FaulthandlerParser, AllThreadsDump) {
  std::string dump =
      "Thread 0x00007f00000a1640 (most recent call first):\n"
      "  File \"/tmp/scenario.py\", line 14 in cb\n"
      "  File \"/usr/lib/python3.12/threading.py\", line 1010 in run\n"
      "\n"
      "Current thread 0x00007f00000b2740 (most recent call first):\n"
      "  File \"/tmp/scenario.py\", line 30 in <module>\n"
      "  <no Python frame>\n";
  auto stacks = parse_faulthandler_dump(dump);
  ASSERT_EQ(stacks.size(), 2u);
  EXPECT_EQ(stacks[0].thread_ident, 0x7f00000a1640u);
  EXPECT_FALSE(stacks[0].current);
  ASSERT_EQ(stacks[0].frames.size(), 2u);
  EXPECT_EQ(stacks[0].frames[0].file, "/tmp/scenario.py");
  EXPECT_EQ(stacks[0].frames[0].line, 14);
  EXPECT_EQ(stacks[0].frames[0].function, "cb");
  EXPECT_TRUE(stacks[1].current);
  EXPECT_EQ(stacks[1].frames[0].function, "<module>");
  EXPECT_TRUE(parse_faulthandler_dump("").empty());
}

// A child too slow to finish its dump (under valgrind) leaves it cut inside a thread's id: the threads
// before the cut are kept, and the snapshot is not lost.
TEST(FaulthandlerParser, DumpCutInsideAThreadId) {
  auto stacks = parse_faulthandler_dump("Thread 0x00007f00000a1640 (most recent call first):\n"
                                        "  File \"/tmp/scenario.py\", line 14 in cb\n\n"
                                        "Current thread 0x");
  ASSERT_EQ(stacks.size(), 1u);
  EXPECT_EQ(stacks[0].frames.size(), 1u);
  EXPECT_TRUE(parse_faulthandler_dump("Current thread 0x").empty());
}

TEST(EntryPoints, VersionAndStreamSuffixesAreDropped) {
  EXPECT_EQ(normalize_entry_point("cuMemAlloc_v2"), "cuMemAlloc");
  EXPECT_EQ(normalize_entry_point("cuStreamSynchronize_ptsz"), "cuStreamSynchronize");
  EXPECT_EQ(normalize_entry_point("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(normalize_entry_point("cuCtxCreate_v4"), "cuCtxCreate");
  EXPECT_EQ(normalize_entry_point("cuLaunchHostFunc"), "cuLaunchHostFunc");
}

TEST(SameStream, DefaultStreamsArePerContext) {
  EXPECT_TRUE(same_stream(0x10, 1, 0x10, 2));
  EXPECT_FALSE(same_stream(0x10, 1, 0x20, 1));
  EXPECT_TRUE(same_stream(0, 1, 0, 1));
  EXPECT_FALSE(same_stream(0, 1, 0, 2));
  EXPECT_TRUE(same_stream(2, 0, 2, 7));
}

TEST(FrameInference, GilWaitBelowLibcPrimitives) {
  auto wait = infer_native_wait({frame("__futex_abstimed_wait_common"), frame("___pthread_cond_timedwait64"),
                                 frame(""), frame("PyEval_RestoreThread"), frame("time_sleep")});
  EXPECT_EQ(wait.kind, NativeWait::Kind::Gil);
  EXPECT_EQ(wait.frame, "PyEval_RestoreThread");
}

TEST(FrameInference, InnermostExplanationWins) {
  // Waiting for a Python lock, which the GIL-taking frames further out do not change.
  auto lock = infer_native_wait({frame("do_futex_wait"), frame("PyThread_acquire_lock_timed"),
                                 frame("lock_PyThread_acquire_lock"), frame("PyGILState_Ensure")});
  EXPECT_EQ(lock.kind, NativeWait::Kind::PythonLock);
  auto driver = infer_native_wait({frame("pthread_cond_wait"), frame("gilsan::sim::Stream::wait_idle()"),
                                   frame("cuStreamSynchronize"), frame("main")});
  EXPECT_EQ(driver.kind, NativeWait::Kind::DriverCall);
  EXPECT_EQ(driver.frame, "cuStreamSynchronize");
  auto runtime = infer_native_wait({frame("ioctl"), frame("cudaStreamSynchronize")});
  EXPECT_EQ(runtime.kind, NativeWait::Kind::DriverCall);
}

TEST(FrameInference, MutexesConditionsAndNothing) {
  auto mutex = infer_native_wait({frame("__lll_lock_wait"), frame("___pthread_mutex_lock"), frame("worker(int)")});
  EXPECT_EQ(mutex.kind, NativeWait::Kind::NativeLock);
  auto condition = infer_native_wait({frame("__futex_abstimed_wait_common"), frame("___pthread_cond_wait"),
                                      frame("std::condition_variable::wait(std::unique_lock<std::mutex>&)"),
                                      frame("pool_loop()")});
  EXPECT_EQ(condition.kind, NativeWait::Kind::OtherWait);
  EXPECT_EQ(infer_native_wait({frame("compute()"), frame("main")}).kind, NativeWait::Kind::None);
  EXPECT_EQ(infer_native_wait({}).kind, NativeWait::Kind::None);
  auto parked = infer_native_wait({frame("pause"), frame("PyThread_hang_thread"), frame("PyGILState_Ensure")});
  EXPECT_EQ(parked.kind, NativeWait::Kind::FinalizationHang);
}

TEST(FrameInference, DebugInfoNamesAndInlinedPrimitivesKeepTheWait) {
  // With libc's debug file, its internal aliases and the calls inlined into them appear.
  NativeFrame futex_wait = frame("futex_wait");
  futex_wait.inlined = true;
  auto mutex = infer_native_wait({futex_wait, frame("__GI___lll_lock_wait"), frame("___pthread_mutex_lock"),
                                  frame("worker(int)")});
  EXPECT_EQ(mutex.kind, NativeWait::Kind::NativeLock);
  EXPECT_EQ(mutex.frame, "__lll_lock_wait");
  // An inlined frame still explains a wait when it names the GIL.
  NativeFrame take_gil = frame("take_gil");
  take_gil.inlined = true;
  EXPECT_EQ(infer_native_wait({frame("pthread_cond_timedwait"), take_gil, frame("PyGILState_Ensure")}).kind,
            NativeWait::Kind::Gil);
}

TEST(FrameInference, DriverThreadsAndFinalization) {
  NativeFrame in_driver;
  in_driver.module = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  EXPECT_TRUE(frames_show_driver_thread({frame("x"), in_driver}));
  EXPECT_FALSE(frames_show_driver_thread({frame("x")}));
  // The main thread, or a threading.Thread, calling into the driver through ctypes is no driver thread.
  EXPECT_FALSE(frames_show_driver_thread({in_driver, frame("ffi_call"), frame("_PyEval_EvalFrameDefault"),
                                          frame("main"), frame("__libc_start_main")}));
  EXPECT_FALSE(frames_show_driver_thread({in_driver, frame("ffi_call"), frame("thread_run"),
                                          frame("pythread_wrapper"), frame("start_thread")}));
  EXPECT_TRUE(frames_show_driver_thread({frame("_PyEval_EvalFrameDefault"), frame("ffi_closure_unix64_inner"),
                                         in_driver, frame("start_thread")}));
  EXPECT_TRUE(frames_show_finalization({frame("x"), frame("Py_FinalizeEx")}));
  EXPECT_FALSE(frames_show_finalization({frame("Py_RunMain")}));
}

}  // namespace
}  // namespace gilsan::watchdog
