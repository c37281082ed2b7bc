#include "harness/runner/process_group.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>

namespace gilsan {

bool become_child_subreaper() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

bool signal_process_group(pid_t pgid, int signal) { return ::kill(-pgid, signal) == 0 || errno != ESRCH; }

GroupCleanup kill_and_reap_process_group(pid_t pgid, std::chrono::milliseconds limit) {
  GroupCleanup cleanup;
  const auto give_up_at = std::chrono::steady_clock::now() + limit;
  while (true) {
    // Killing again on every round catches a process forked by a member between two rounds.
    if (::kill(-pgid, SIGKILL) != 0 && errno == ESRCH) {
      cleanup.group_gone = true;
      return cleanup;
    }
    int status = 0;
    while (::waitpid(-pgid, &status, WNOHANG) > 0) ++cleanup.reaped;
    if (std::chrono::steady_clock::now() >= give_up_at) return cleanup;
    // Members that are not yet our children are dying and being re-parented: give them a moment.
    const timespec pause{0, 5'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace gilsan
