// Snapshot: everything the watchdog gathered about a hung (or crashing) child at one moment, as plain
// values. The classifier reads only this, so its tests build snapshots by hand, without processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/board/board_records.h"

namespace gilsan::watchdog {

// What /proc/PID/task/TID/syscall said.
struct SyscallState {
  enum class Kind { Unknown, Running, NotInSyscall, InSyscall };
  Kind kind = Kind::Unknown;
  long number = -1;  // valid when kind == InSyscall
};

// /proc/PID/task/TID/{stat,comm,wchan,syscall,schedstat}.
struct ProcThreadState {
  char state = '?';  // R, S, D, T, Z... from stat
  std::string comm;
  std::string wchan;  // kernel function the thread sleeps in, "" when unknown or running
  SyscallState syscall;
  std::uint64_t cpu_ns = 0;      // time spent on a CPU (schedstat)
  std::uint64_t timeslices = 0;  // times it was scheduled (schedstat): changes when a sleeper wakes
};

struct NativeFrame {
  std::uint64_t address = 0;
  std::string symbol;  // demangled; empty when no symbol covers the address
  std::uint64_t symbol_offset = 0;
  std::string module;  // path of the mapped file, or "[vdso]" and the like
  std::uint64_t module_offset = 0;  // address relative to the module's load base
  std::string file;  // source file, from the module's DWARF (SourceLines); "" when it has none
  int line = 0;
  // A call the compiler inlined: no machine frame of its own; it shares the address of the frame
  // after it, whose function holds its code.
  bool inlined = false;
};

struct PythonFrame {
  std::string file;
  int line = 0;
  std::string function;
};

struct ThreadSnapshot {
  int tid = 0;
  std::optional<ProcThreadState> proc;       // absent: the thread no longer exists
  std::optional<board::ThreadRecord> board;  // absent: the thread never wrote the board
  std::vector<NativeFrame> native_stack;     // innermost first
  // The GIL as the interpreter had it when this snapshot sampled the thread's stack (Unknown: no
  // sample, or no Python thread state on the thread).
  board::GilState gil_at_snapshot = board::GilState::Unknown;
  std::string native_stack_note;             // why the stack is missing or partial
  std::optional<std::vector<PythonFrame>> python_stack;  // innermost first
  // The native lock the board says the thread waits for, named from its addresses: the variable (or
  // none: heap memory) and the module holding it, and the function that asked for it.
  struct NativeLockNames {
    NativeFrame lock;
    NativeFrame call_site;
  };
  std::optional<NativeLockNames> waiting_native_lock;
  // The CUDA entry point the watchdog saw this thread spin in (from its native stack) before the
  // snapshot, so its CPU use was not counted as progress; "" when none.
  std::string spinning_in;

  bool exited() const { return !proc.has_value(); }
};

struct Snapshot {
  int pid = 0;
  std::uint64_t taken_ns = 0;          // CLOCK_MONOTONIC, like every *_ns on the board
  std::uint64_t last_progress_ns = 0;  // when the watchdog last saw progress
  board::ProgressCounters progress{};
  std::uint64_t device_busy_until_ns = 0;
  bool interpreter_finalizing = false;  // as the board says; the classifier may also infer it
  std::optional<board::CrashRecord> crash;
  std::vector<ThreadSnapshot> threads;  // sorted by tid
  std::vector<board::HostFunctionRecord> pending_host_functions;  // oldest first
  std::vector<board::EventRecord> events;
  std::string python_stack_text;  // faulthandler's output as received
  std::vector<std::string> notes;  // gaps in the evidence, e.g. "Python stacks: no signal announced"

  const ThreadSnapshot* find_thread(int tid) const {
    for (const ThreadSnapshot& thread : threads) {
      if (thread.tid == tid) return &thread;
    }
    return nullptr;
  }
};

}  // namespace gilsan::watchdog
