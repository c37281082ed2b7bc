// Clean-up after a run: every process of the child's tree is killed (SIGTERM, then SIGKILL) and
// reaped, and the board removed, whatever the child did (ignore SIGTERM, fork, leave the group).
//
// The tree is found through /proc: the child's process group, every descendant of the child by parent
// pid, and every process seen in an earlier scan (so a grandchild that called setsid() after being
// seen is still found). A grandchild that escapes before any scan sees it, and whose parent then dies,
// is re-parented to init -- unless the caller made itself a child subreaper
// (become_child_subreaper()), in which case it is re-parented to the caller and found as one of the
// caller's children in the child's group or session.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <vector>

#include "harness/board/board_region.h"

namespace gilsan::watchdog {

struct CleanupOptions {
  std::chrono::milliseconds term_grace{300};   // after SIGTERM, before SIGKILL
  std::chrono::milliseconds kill_timeout{3000};  // SIGKILL rounds until nothing is left
};

struct CleanupResult {
  std::optional<int> child_status;  // waitpid status of the child, when this call reaped it
  std::vector<pid_t> signalled;     // every process that got a signal
  std::vector<pid_t> survivors;     // still alive at the end (empty unless something resisted SIGKILL)
};

// PR_SET_CHILD_SUBREAPER: orphaned descendants of our children become our children.
bool become_child_subreaper();

// The descendants of `root` (by parent pid) and the members of `process_group`, from /proc.
std::vector<pid_t> find_process_tree(pid_t root, pid_t process_group);

CleanupResult terminate_process_tree(pid_t child, pid_t process_group, const CleanupOptions& options = {});

// Owns a run's board and, once started, its child: finish() (or the destructor) kills and reaps the
// whole tree and removes the board, exactly once.
class RunGuard {
 public:
  explicit RunGuard(board::BoardRegion board, CleanupOptions options = {})
      : board_(std::move(board)), options_(options) {}
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
  ~RunGuard() { finish(); }

  board::BoardRegion& board() { return board_; }
  void set_child(pid_t child, pid_t process_group) {
    child_ = child;
    process_group_ = process_group;
  }
  // The caller reaped the child itself (it saw it exit); finish() still sweeps the group.
  void child_reaped() { child_reaped_ = true; }

  CleanupResult finish();

 private:
  board::BoardRegion board_;
  CleanupOptions options_;
  pid_t child_ = 0;
  pid_t process_group_ = 0;
  bool child_reaped_ = false;
  bool finished_ = false;
};

}  // namespace gilsan::watchdog
