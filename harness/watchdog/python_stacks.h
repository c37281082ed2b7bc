// The parent's side of Python stacks: the child registered faulthandler on a signal with a pipe as
// its file (docs/watchdog.md says exactly what to call); the parent sends the signal and reads what
// faulthandler writes. faulthandler dumps every thread without taking the GIL, so this works while the
// interpreter is deadlocked.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

struct PythonThreadStack {
  std::uint64_t thread_ident = 0;  // threading.get_ident(), i.e. pthread_self() of the thread
  bool current = false;            // the thread that ran the dump
  std::vector<PythonFrame> frames;  // innermost first
};

// Parses faulthandler's all-threads format ("Thread 0x... (most recent call first):" blocks of
// '  File "f.py", line 3 in g' lines). Lines it does not understand are skipped.
std::vector<PythonThreadStack> parse_faulthandler_dump(const std::string& text);

struct PythonStackRequest {
  pid_t pid = 0;
  int signal_number = 0;  // the signal faulthandler.register() was given
  int read_fd = -1;       // read end of the pipe faulthandler writes to (not closed here)
  std::chrono::milliseconds timeout{500};   // no output at all by then: give up
  std::chrono::milliseconds idle_gap{30};   // output then silence this long: the dump is complete
};

// Drains stale output, signals the process, and returns what faulthandler wrote (may be empty), up to
// the child's end-of-dump line (board::kPythonStacksEnd) when it writes one, else up to the idle gap.
// Throws std::system_error when the signal cannot be sent.
std::string collect_python_stacks(const PythonStackRequest& request);

}  // namespace gilsan::watchdog
