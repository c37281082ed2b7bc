// Starting the scenario child: exec'd (never a bare fork of a process that may hold locks), in a
// process group of its own so that it and everything it forks can be signalled together, with its
// stdout, stderr and report channel connected to pipes the parent drains.
#pragma once

#include <sys/types.h>

#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "harness/runner/unique_fd.h"

namespace gilsan {

struct ChildCommand {
  std::string executable;                // e.g. "/proc/self/exe"
  std::vector<std::string> arguments;    // argv, argv[0] included
  std::vector<std::string> environment;  // "NAME=value" entries, the child's whole environment
  int report_fd_in_child = 3;            // where the child finds the write end of the report pipe
  // Further descriptors the child inherits: (descriptor here, number in the child). The one here
  // must not be any of 0-3 or another entry's number in the child.
  std::vector<std::pair<int, int>> inherited_fds;
};

// The parent's ends: read ends, non-blocking and close-on-exec. The child's pid is its process group.
struct SpawnedChild {
  pid_t pid = -1;
  UniqueFd stdout_pipe;
  UniqueFd stderr_pipe;
  UniqueFd report_pipe;
  std::string run_marker;  // GILSAN_RUN_MARKER's value in its environment (run_marker.h)
};

// Starts the child with stdin on /dev/null, every signal at its default disposition and a new run
// marker added to its environment (run_marker.h). Makes the
// calling process a child subreaper first (see process_group.h), so that the child's orphans are ours.
// Throws std::system_error when a pipe cannot be made or the executable cannot be started.
SpawnedChild spawn_in_own_process_group(const ChildCommand& command);

}  // namespace gilsan
