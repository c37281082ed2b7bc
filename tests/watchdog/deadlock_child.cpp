// gilsan_test_deadlock_child MODE [ONSET_FILE]: a child process that writes the board and then hangs
// (or crashes, or finishes) in a known way, for the watchdog's integration tests and its latency
// measurement. With ONSET_FILE it writes the CLOCK_MONOTONIC ns at which it started to hang.
//
// The functions that block are named for what they do and kept out of line, so the tests can look
// for them in the symbolized native stacks.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "harness/board/board_writer.h"

namespace board = gilsan::board;

namespace {

constexpr std::uint64_t kContext = 0x30;
constexpr std::uint64_t kStream = 0x10;

std::mutex g_never_mutex;
std::condition_variable g_never;
std::string g_onset_file;

void write_onset() {
  if (g_onset_file.empty()) return;
  std::ofstream(g_onset_file) << board::monotonic_ns() << "\n";
}

// Waits on a condition nobody signals (a stand-in for a driver's internal wait).
__attribute__((noinline)) void wait_forever() {
  std::unique_lock<std::mutex> lock(g_never_mutex);
  while (true) g_never.wait(lock);
}

__attribute__((noinline)) void deadlock_child_wait_in_driver() {
  board::set_gil_state(board::GilState::Holds);
  board::enter_call("cuStreamSynchronize", kContext, kStream, 0);
  wait_forever();
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void deadlock_child_wait_for_gil() {
  board::set_role(board::Role::DriverCallback, kContext);
  board::HostFunctionInfo info;
  info.id = 3;
  info.context = kContext;
  info.stream = kStream;
  info.kind = board::HostFunctionKind::Python;
  info.implementation = "test";
  info.description = "scenario.py:14 cb";
  board::begin_host_function(info);
  board::set_gil_state(board::GilState::Waiting);
  wait_forever();
  asm volatile("" ::: "memory");
}

// The GIL inversion, acted out on the board: main holds the GIL and waits for stream 0x10, whose
// host function waits for the GIL on the callback thread.
int gil_inversion() {
  std::thread callback(deadlock_child_wait_for_gil);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_onset();
  deadlock_child_wait_in_driver();
  callback.join();
  return 0;
}

std::mutex g_lock_a;
std::mutex g_lock_b;

__attribute__((noinline)) void deadlock_child_lock(std::mutex& first, std::uint64_t first_id, std::mutex& second,
                                                   std::uint64_t second_id, bool tell_board) {
  first.lock();
  if (tell_board) board::note_lock_acquired(first_id, first_id == 1 ? "lock A" : "lock B");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (tell_board) board::begin_lock_wait(second_id, second_id == 1 ? "lock A" : "lock B");
  second.lock();
  std::printf("unreachable: got both locks\n");
}

// The empty asm after each call keeps the compiler from turning it into a tail call, which would
// take this function's frame off the stack the tests look at.
__attribute__((noinline)) void deadlock_child_lock_a_then_b(bool tell_board) {
  board::set_role(board::Role::OtherNative);
  deadlock_child_lock(g_lock_a, 1, g_lock_b, 2, tell_board);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void deadlock_child_lock_b_then_a(bool tell_board) {
  board::set_role(board::Role::OtherNative);
  deadlock_child_lock(g_lock_b, 2, g_lock_a, 1, tell_board);
  asm volatile("" ::: "memory");
}

// Two threads take two mutexes in opposite order.
int lock_inversion(bool tell_board) {
  std::thread one(deadlock_child_lock_a_then_b, tell_board);
  std::thread two(deadlock_child_lock_b_then_a, tell_board);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  write_onset();
  one.join();
  two.join();
  return 0;
}

// A thread waits on a condition forever; nothing is on the board but the roles.
int condition_wait() {
  std::thread waiter([] {
    board::set_role(board::Role::OtherNative);
    wait_forever();
  });
  write_onset();
  waiter.join();
  return 0;
}

// Long device work and a long synchronize that ends: not a hang.
int slow_device(unsigned milliseconds) {
  board::set_gil_state(board::GilState::Released);
  board::expect_device_work(std::uint64_t{milliseconds} * 1'000'000);
  board::enter_call("cuStreamSynchronize", kContext, kStream, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
  board::exit_call();
  board::note_progress(board::ProgressKind::DeviceWork);
  return 0;
}

// Read at run time, so the compiler cannot see (and warn about) the bad address.
volatile std::uintptr_t g_unmapped_address = 16;

// A real fault, not one the sanitizers catch first: their checks are off here and the address is not
// null (UBSan) nor in memory ASan tracks.
__attribute__((noinline, no_sanitize("address", "undefined"))) void deadlock_child_crash_in_host_function() {
  board::HostFunctionInfo info;
  info.id = 7;
  info.context = kContext;
  info.stream = kStream;
  info.kind = board::HostFunctionKind::Native;
  info.implementation = "test";
  info.description = "crashing callback";
  board::begin_host_function(info);
  volatile int* nowhere = reinterpret_cast<volatile int*>(g_unmapped_address);
  *nowhere = 42;
  board::end_host_function();
}

int crash() {
  std::thread callback(deadlock_child_crash_in_host_function);
  callback.join();
  return 0;
}

// Ignores SIGTERM and leaves two descendants behind: a grandchild in the group, and a
// great-grandchild in a session of its own. All of them sleep forever.
int ignore_term_and_fork() {
  ::signal(SIGTERM, SIG_IGN);
  if (::fork() == 0) {
    if (::fork() == 0) {
      ::setsid();
      while (true) ::pause();
    }
    while (true) ::pause();
  }
  write_onset();
  wait_forever();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s gil-inversion|locks|silent-locks|condition|slow-device MS|crash|ignore-term [ONSET_FILE]\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  int next = 2;
  unsigned slow_ms = 0;
  if (mode == "slow-device") {
    if (argc < 3) return 2;
    slow_ms = static_cast<unsigned>(std::stoul(argv[2]));
    next = 3;
  }
  if (argc > next) g_onset_file = argv[next];

  board::set_role(board::Role::Main);
  board::install_stack_sampler();
  board::install_crash_reporter();

  if (mode == "gil-inversion") return gil_inversion();
  if (mode == "locks") return lock_inversion(true);
  if (mode == "silent-locks") return lock_inversion(false);
  if (mode == "condition") return condition_wait();
  if (mode == "slow-device") return slow_device(slow_ms);
  if (mode == "crash") return crash();
  if (mode == "ignore-term") return ignore_term_and_fork();
  std::fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], mode.c_str());
  return 2;
}
