// Hand-built snapshots for the classifier and report tests: threads described the way the board and
// /proc would describe them, without any process.
#pragma once

#include <string>
#include <vector>

#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog::testing {

constexpr std::uint64_t kContext = 0x30;
constexpr std::uint64_t kStream1 = 0x10;
constexpr std::uint64_t kStream2 = 0x20;
constexpr int kMain = 100;
constexpr int kCallback = 101;
constexpr int kOther = 102;

inline NativeFrame frame(const std::string& symbol, const std::string& module = "/usr/lib/libtest.so") {
  NativeFrame result;
  result.address = 0x1000;
  result.symbol = symbol;
  result.module = module;
  return result;
}

inline board::CallRecord call(const std::string& entry_point, std::uint64_t stream, std::uint64_t event = 0,
                              board::GilState gil_at_entry = board::GilState::Unknown) {
  board::CallRecord record;
  record.entry_point = entry_point;
  record.context = kContext;
  record.stream = stream;
  record.event = event;
  record.entered_ns = 1'000;
  record.gil_at_entry = gil_at_entry;
  return record;
}

inline board::HostFunctionRecord host_function(std::uint64_t id, std::uint64_t stream,
                                               board::HostFunctionKind kind = board::HostFunctionKind::Python,
                                               const std::string& description = "scenario.py:14 cb") {
  board::HostFunctionRecord record;
  record.id = id;
  record.context = kContext;
  record.stream = stream;
  record.kind = kind;
  record.implementation = "gilsan";
  record.description = description;
  return record;
}

class SnapshotBuilder {
 public:
  SnapshotBuilder() {
    snapshot_.pid = kMain;
    snapshot_.taken_ns = 2'000'000'000;
    snapshot_.last_progress_ns = 1'000'000'000;
  }

  // A live thread that wrote the board, sleeping in a futex.
  ThreadSnapshot& board_thread(int tid, board::Role role, std::uint64_t role_context = 0) {
    ThreadSnapshot& thread = plain_thread(tid);
    thread.board = board::ThreadRecord{};
    thread.board->tid = tid;
    thread.board->role = role;
    thread.board->role_context = role_context;
    return thread;
  }

  // A live thread the board knows nothing about.
  ThreadSnapshot& plain_thread(int tid) {
    ThreadSnapshot thread;
    thread.tid = tid;
    thread.proc = ProcThreadState{};
    thread.proc->state = 'S';
    thread.proc->comm = "test";
    thread.proc->syscall.kind = SyscallState::Kind::InSyscall;
    thread.proc->syscall.number = 202;
    snapshot_.threads.push_back(std::move(thread));
    return snapshot_.threads.back();
  }

  Snapshot& snapshot() { return snapshot_; }

 private:
  Snapshot snapshot_;
};

// The canonical inversion: main holds the GIL and waits for stream 1, whose Python host function #3
// waits for the GIL on the callback thread.
inline Snapshot gil_inversion_snapshot() {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, board::Role::Main);
  main_thread.board->gil_state = board::GilState::Holds;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  ThreadSnapshot& callback = builder.board_thread(kCallback, board::Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->gil_state = board::GilState::Waiting;
  return builder.snapshot();
}

}  // namespace gilsan::watchdog::testing
