// Running probe cases, each in a child process of its own, several at a time, each with a deadline.
//
// A case child is this same executable, re-executed (posix_spawn, never a bare fork: the parent may
// already hold driver threads) with hidden case arguments. It runs in a process group of its own so
// that a case that hangs is ended with everything it started: one SIGKILL to the group, then the
// group is reaped before the next case takes its slot. Nothing of a case outlives run_cases.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/probe/case_protocol.h"

namespace gilsan::probe {

// How to start this executable again in the mode that runs one case.
struct SelfCommand {
  std::string executable;                // the resolved /proc/self/exe
  std::vector<std::string> argv_prefix;  // argv up to (not including) the probe command's arguments
  std::vector<std::string> environment;  // "NAME=value", the children's whole environment
};

// The command that started this process, minus `command_arguments` (which must be the tail of its
// argv, as the gilsan executable passes them). Throws std::runtime_error when /proc cannot tell.
SelfCommand self_command(const std::vector<std::string>& command_arguments);

// This process's environment with `set` entries replaced or added and `removed` names taken out.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& set,
                                          const std::vector<std::string>& removed);

// The descriptor at which a case child finds the write end of its report pipe.
inline constexpr int kCaseReportFd = 3;

struct CaseRequest {
  std::string label;                   // for people: "inside cuMemAlloc"
  std::vector<std::string> arguments;  // appended to the self command's argv prefix
  std::chrono::milliseconds limit{0};  // from start to exit; a `deadline` line may shorten it
};

struct CaseResult {
  std::string label;
  std::vector<CaseLine> lines;  // every complete line the child reported, in order
  bool killed_at_deadline = false;
  int exit_code = -1;           // when the child exited by itself
  int signal = 0;               // when a signal ended it (other than our SIGKILL at the deadline)
  bool group_left_behind = false;  // a process of the case's group could not be reaped
  std::chrono::milliseconds elapsed{0};
  std::string output;           // the tail of the child's stdout and stderr

  bool has(std::string_view key) const { return find(key) != nullptr; }
  const CaseLine* find(std::string_view key) const;  // the first line with that key, or null
  // One phrase for a case that did not end normally ("exited with status 3", "killed by SIGSEGV").
  std::string how_it_ended() const;
};

// Runs every request, at most `jobs` at a time, and returns the results in request order. Makes this
// process a child subreaper (prctl), so that processes a case leaves behind are reaped here.
// `on_done` (optional) is called in the calling thread as each case ends.
// Throws std::system_error when a child cannot be started.
std::vector<CaseResult> run_cases(const SelfCommand& self, const std::vector<CaseRequest>& requests, int jobs,
                                  const std::function<void(const CaseResult&)>& on_done = {});

}  // namespace gilsan::probe
