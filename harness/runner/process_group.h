// Ending a scenario's process group so that nothing it started is left running.
//
// The runner is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a grandchild whose parent died is
// re-parented to the runner rather than to init, so the runner can reap it and know it is gone.
// A process that leaves the group (setsid, setpgid) is outside this reach.
#pragma once

#include <sys/types.h>

#include <chrono>

namespace gilsan {

// Idempotent. Returns false when the kernel refused (then init reaps orphans instead).
bool become_child_subreaper();

// Sends `signal` to every process of group `pgid`; false when the group no longer exists.
bool signal_process_group(pid_t pgid, int signal);

struct GroupCleanup {
  int reaped = 0;           // processes of the group reaped here (the leader is reaped before)
  bool group_gone = false;  // no process of the group exists any more, zombies included
};

// SIGKILLs the whole group and reaps its members that are (or become) our children, until no process
// of the group exists or `limit` passes. Call after the group leader itself has been reaped.
GroupCleanup kill_and_reap_process_group(pid_t pgid, std::chrono::milliseconds limit);

}  // namespace gilsan
