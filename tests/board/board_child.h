// What the board's fork tests share: a child that writes with GILSAN_BOARD set, as the runner's child
// finds it, and a host function's record to write.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

#include "harness/board/board_writer.h"

namespace gilsan::board {

// Runs `body` in a forked child with GILSAN_BOARD set to `path` (unset when empty); returns its exit
// code, or -1 when it did not exit normally.
inline int run_child(const std::string& path, const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (path.empty()) {
      ::unsetenv(kBoardEnvironmentVariable);
    } else {
      ::setenv(kBoardEnvironmentVariable, path.c_str(), 1);
    }
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline HostFunctionInfo host_function(std::uint64_t id, std::uint64_t stream) {
  HostFunctionInfo info;
  info.id = id;
  info.context = 0x30;
  info.stream = stream;
  info.kind = HostFunctionKind::Python;
  info.implementation = "gilsan";
  info.description = "scenario.py:14 cb";
  return info;
}

}  // namespace gilsan::board
