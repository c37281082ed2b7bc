// Reading a process's threads from /proc: which exist, and what the kernel says each is doing.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

// Thread ids under /proc/PID/task, sorted; empty when the process is gone.
std::vector<int> list_threads(pid_t pid);

// nullopt when the thread is gone. Files the kernel refuses (e.g. syscall without ptrace rights)
// leave their fields at "unknown".
std::optional<ProcThreadState> read_thread_state(pid_t pid, int tid);

// Parsers, exposed for tests.
bool parse_stat_line(const std::string& line, ProcThreadState& state);  // /proc/.../stat
SyscallState parse_syscall_line(const std::string& line);               // /proc/.../syscall

// Name of a system call number on this architecture, or "syscall N".
std::string syscall_name(long number);

// A system call a thread may sit in indefinitely, waiting for another thread or process (futex,
// poll, read...). Sleeps (nanosleep) are not: a sleeping thread wakes up by itself.
bool is_waiting_syscall(long number);

// The kernel says the thread waits for something (not running, not sleeping on a timer).
bool looks_blocked(const ProcThreadState& state);

// The thread sits in nanosleep or clock_nanosleep: it wakes by itself.
bool sleeps_on_a_timer(const ProcThreadState& state);

}  // namespace gilsan::watchdog
