// The board's writer API, for code running in the scenario process: the `gilsan` module, the
// simulated driver's observer hooks, and the CUPTI injection library. Each may link its own static
// copy of this code (gilsan_board_writer): every copy finds the same shared region through the
// environment variable GILSAN_BOARD, and all state lives in that region, so the copies agree.
//
// Contract of every function here:
//   - When GILSAN_BOARD is unset (or names an unusable region) it is a cheap no-op.
//   - It never allocates, never takes a lock, never blocks, so a thread may call it right before it
//     blocks. (The first call of a process maps the region and looks up PyGILState_Check; the first
//     call of a thread claims its slot with a compare-and-swap and caches it in a thread_local, whose
//     first use in a dlopen'd object may allocate. Call attach() early to get this out of the way.)
//   - It records the calling thread's state in the calling thread's slot.
//   - Handles (contexts, streams, events) are passed as integers: reinterpret_cast<std::uintptr_t>.
// Only the board's first process writes: a forked or exec'd descendant that inherits GILSAN_BOARD
// stays silent, so it cannot scribble over the scenario's slots.
#pragma once

#include <cstdint>
#include <string_view>

#include "harness/board/board_layout.h"

namespace gilsan::board {

inline constexpr const char* kBoardEnvironmentVariable = "GILSAN_BOARD";

struct HostFunctionInfo {
  std::uint64_t id = 0;  // unique among this writer's host functions
  std::uint64_t context = 0;
  std::uint64_t stream = 0;  // for a graph's host node: the stream the graph was launched on
  HostFunctionKind kind = HostFunctionKind::Unknown;
  // Who launched it, e.g. "gilsan", "cupy", "simcuda": a string literal or a name that lives as long
  // as the process (the board copies it once per place and then goes by its address).
  const char* implementation = nullptr;
  const char* description = nullptr;     // e.g. "scenario.py:14 cb" (truncated to 95 bytes)
  // For begin_host_function: false when this writer's note_host_function_enqueued for it returned
  // false (not placed), so there is no pending entry to look for. A queue deeper than the pending
  // table makes most starts such misses, and a miss scans the id's whole window of the table.
  bool maybe_pending = true;
};

// Maps the board now (otherwise the first write does). Returns whether writes reach a board.
bool attach();
bool enabled();

// --- who this thread is ---
void set_role(Role role, std::uint64_t context = 0);

// --- the GIL, as known from our trampolines and module ---
void set_gil_state(GilState state);

// --- driver calls: enter before the call, exit after it returns (nesting up to 4 deep) ---
// enter_call also records whether this thread held the GIL at entry (PyGILState_Check, when the
// process had Python loaded when the board was attached, and the runtime is initialized).
// `entry_point`, like HostFunctionInfo::implementation, is a string literal or lives as long as the
// process.
void enter_call(const char* entry_point, std::uint64_t context, std::uint64_t stream,
                std::uint64_t event);
void exit_call();  // also counts ProgressKind::DriverCall

// --- host functions ---
// Pending until begin or dropped. Returns whether it was placed: false when the table had no room
// (counted in lost_writes) or there is no board.
bool note_host_function_enqueued(const HostFunctionInfo& info);
// Will never run (the enqueue failed, the context has a sticky error...). Pending entries are matched
// by id and implementation, so two writers' id spaces do not collide.
void note_host_function_dropped(std::uint64_t id, const char* implementation);
// On the thread that runs it. Marks the thread as its context's callback thread unless it said
// otherwise, and removes the matching pending entry (unless info.maybe_pending is false). A
// trampoline inside a driver's host function may begin another, nested record that adds what it
// knows (kind, description).
void begin_host_function(const HostFunctionInfo& info);
void end_host_function();  // also counts ProgressKind::HostFunction

// --- events: where an event was last recorded ---
void note_event_recorded(std::uint64_t event, std::uint64_t stream, std::uint64_t context);

// --- user locks (Python or native), for locks a writer knows about ---
// What the calling thread is doing for the program's user, for the watchdog's report ("pytest
// tests/test_x.py::test_y"); nullptr or "" says nothing any more. Truncated to 127 bytes.
void set_activity(const char* text);

void begin_lock_wait(std::uint64_t lock_id, const char* name);
// A native lock (harness/nativelocks): its address, what it is, its holder as the lock says (0 when it
// does not) and where the caller asked for it. Unnamed: the watchdog names it from the address.
// Written only when the thread has no wait on the board yet, and returns whether it was: a native wait
// inside a recorded one (the interpreter's own mutex or condition variable, taken while a Python lock
// acquire lets the GIL go) is part of that wait, which must stay.
bool begin_native_lock_wait(std::uint64_t lock_id, LockKind kind, int holder_tid, std::uint64_t call_site);
// A wait for a notification (LockKind::Notification), of the object `object_id` named `name`.
void begin_notification_wait(std::uint64_t object_id, const char* name);
// The holder changed while the thread waited (another waiter got the lock first).
void note_lock_wait_holder(int holder_tid);
void end_lock_wait();
// Ends the thread's wait only if it is for `lock_id`: a try-lock that fails inside a wait for a
// notification (Condition.wait asks whether its lock is held that way) must not end that wait.
void end_lock_wait_for(std::uint64_t lock_id);
void note_lock_acquired(std::uint64_t lock_id, const char* name);
void note_lock_released(std::uint64_t lock_id);

// --- progress ---
void note_progress(ProgressKind kind);
// Device work that will keep the device busy for `duration_ns` from now (or after earlier declared
// work): the watchdog does not call quiet time a hang before that. Counts ProgressKind::DeviceWork
// when it is declared, so the start of a long kernel is itself progress.
void expect_device_work(std::uint64_t duration_ns);

// --- interpreter and signals ---
void set_interpreter_finalizing();
// Tells the parent which signal makes faulthandler dump every thread's Python stack to its pipe
// (see docs/watchdog.md for what the child must call).
void announce_python_stack_signal(int signal_number);
// The line a child may write to that pipe right after each dump (one write, from the same signal
// handler): the parent then knows the dump is whole at once. Without it the parent waits for a
// stretch of silence (30 ms) after the last output, or for its timeout when nothing comes.
inline constexpr std::string_view kPythonStacksEnd = "# gilsan: end of the Python stacks\n";

// Installs the native-stack sampler: a handler for `signal_number` (0: SIGRTMIN + 6) that writes the
// interrupted thread's return addresses into its slot when the parent asks. Warms up backtrace()
// first so the handler does not load libgcc_s later. Returns the signal used, or -1 when the board is
// off or sigaction failed.
int install_stack_sampler(int signal_number = 0);

// Installs a handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that writes the crashing thread's
// stack and the crash to the board, waits (at most the board's crash_wait_ms) for the parent to take
// its snapshot, then lets the previous handler or the default action run. Also gives the calling
// thread an alternate signal stack so a stack overflow can be reported. Returns false when the board
// is off or sigaction failed.
bool install_crash_reporter();

}  // namespace gilsan::board
