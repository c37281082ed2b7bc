// Plain copies of what the board holds, as the parent reads them (board_reader.h). These are ordinary
// values (strings, vectors), so the watchdog's Snapshot and the classifier's tests can build them by
// hand without any shared memory.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/board/board_layout.h"

namespace gilsan::board {

struct CallRecord {
  std::string entry_point;
  std::uint64_t context = 0;
  std::uint64_t stream = 0;
  std::uint64_t event = 0;
  std::uint64_t entered_ns = 0;
  GilState gil_at_entry = GilState::Unknown;
};

struct HostFunctionRecord {
  std::uint64_t id = 0;
  std::uint64_t context = 0;
  std::uint64_t stream = 0;
  HostFunctionKind kind = HostFunctionKind::Unknown;
  std::string implementation;
  std::string description;
  std::uint64_t at_ns = 0;  // began (running) or enqueued (pending)
};

struct LockRecord {
  std::uint64_t id = 0;
  std::string name;
  std::uint64_t since_ns = 0;
  LockKind kind = LockKind::Python;
  int holder_tid = 0;  // as the lock says (native locks); 0 unknown
  std::uint64_t call_site = 0;

  // Recorded by the interposer: named by the symbol at its address and the function that asked.
  bool native() const {
    return kind == LockKind::NativeMutex || kind == LockKind::NativeWriteLock || kind == LockKind::NativeReadLock ||
           kind == LockKind::NativeCondition;
  }
  // Nobody holds it: some thread may notify it.
  bool notification() const { return kind == LockKind::Notification || kind == LockKind::NativeCondition; }
};

using ProgressCounters = std::array<std::uint64_t, kProgressKinds>;

struct ThreadRecord {
  int tid = 0;
  std::uint64_t pthread_id = 0;
  Role role = Role::Unknown;
  std::uint64_t role_context = 0;
  GilState gil_state = GilState::Unknown;
  std::uint64_t gil_changed_ns = 0;
  std::vector<CallRecord> calls;                    // outermost first
  std::vector<HostFunctionRecord> host_functions;   // outermost first
  std::optional<LockRecord> waiting_lock;
  std::vector<LockRecord> held_locks;
  std::string activity;  // set_activity's text; "" when none
  ProgressCounters progress{};
  // Native stack as raw addresses; frames[0] is the interrupted instruction, the rest are return
  // addresses. stack_signal is 0 when no handler ever wrote one.
  std::vector<std::uint64_t> frames;
  int stack_signal = 0;
  std::uint64_t stack_answer = 0;
  GilState gil_at_stack = GilState::Unknown;  // the interpreter's word when the stack was sampled
  // False when the seqlock never settled within the reader's retries (a thread writing nonstop).
  bool consistent = true;
};

struct EventRecord {
  std::uint64_t event = 0;
  std::uint64_t stream = 0;
  std::uint64_t context = 0;
  std::uint64_t recorded_ns = 0;
};

struct CrashRecord {
  int signal = 0;
  int tid = 0;
  std::uint64_t address = 0;
};

// Everything on the board at one moment (each part consistent on its own).
struct BoardContents {
  int owner_pid = 0;
  int stack_sample_signal = 0;
  int python_stack_signal = 0;
  ProgressCounters progress{};
  std::uint64_t device_busy_until_ns = 0;
  bool interpreter_finalizing = false;
  std::uint64_t lost_writes = 0;
  std::optional<CrashRecord> crash;
  std::vector<ThreadRecord> threads;
  std::vector<HostFunctionRecord> pending_host_functions;
  std::vector<EventRecord> events;
};

}  // namespace gilsan::board
