// Finding every process a run started, wherever it went.
//
// The scenario child's process group covers what stays in it; a process that calls setsid() or
// setpgid(), and whose parent then exits, leaves it, and (once the runner exits) goes to init. So the
// child gets one more environment variable, GILSAN_RUN_MARKER=<token>, unique to the run: forks share
// the environment block, and execs that pass the environment on keep it. After the child has exited the
// runner reads /proc/PID/environ of every process of its user and kills those that carry the token.
// What drops its environment (env -i) is still caught by the process group, or by the runner being a
// child subreaper, while its parent lives.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace gilsan {

inline constexpr const char* kRunMarkerVariable = "GILSAN_RUN_MARKER";

// A token no other run of any gilsan on this machine has: this process's pid, a count of runs, and
// the monotonic clock.
std::string new_run_marker();

// The processes (other than this one) whose environment holds kRunMarkerVariable=marker.
std::vector<pid_t> processes_with_marker(const std::string& marker);

// The processes whose marker is of a run that the gilsan process `owner` started (new_run_marker's
// first field): what run_guardian.h kills when that gilsan died without cleaning up.
std::vector<pid_t> processes_of_runs_by(pid_t owner);

// SIGKILLs every process with the marker until none is left or `limit` passes, reaping those that are
// (or became) our children, by pid: other runs' children are never waited for here. Returns how many
// processes it killed.
int kill_marked_processes(const std::string& marker, std::chrono::milliseconds limit);

}  // namespace gilsan
