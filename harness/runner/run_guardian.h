// Nothing a run started survives its gilsan, however gilsan ends: SIGKILL included (what a CI job's
// timeout sends), which no handler sees.
//
// gilsan forks a guardian before it starts anything else. The guardian sits in a session of its own
// (a kill of gilsan's process group does not reach it), ignores the terminal's signals, and waits on a
// pipe whose only write end gilsan holds. When gilsan is gone the pipe reaches end of file: the guardian
// SIGKILLs every process that carries the marker of one of gilsan's runs (run_marker.h) and the process
// groups they lead, removes gilsan's run folders (run_folders.h), and exits. When gilsan ends normally
// it has cleaned up already: it says so on the pipe before closing it, the guardian exits without
// looking, and gilsan reaps it.
#pragma once

#include <sys/types.h>

namespace gilsan {

class RunGuardian {
 public:
  // Forks the guardian: call before any thread starts. If fork fails, gilsan runs without one.
  RunGuardian();
  ~RunGuardian();  // closes the pipe and reaps the guardian
  RunGuardian(const RunGuardian&) = delete;
  RunGuardian& operator=(const RunGuardian&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int write_end_ = -1;
};

}  // namespace gilsan
