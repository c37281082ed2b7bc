#include "harness/watchdog/descendant_activity.h"

#include "harness/watchdog/process_cleanup.h"
#include "harness/watchdog/proc_threads.h"

namespace gilsan::watchdog {

bool DescendantActivity::moved_since_last_look(std::uint64_t now_ns) {
  const std::uint64_t interval_ns = last_look_ns_ != 0 && now_ns > last_look_ns_ ? now_ns - last_look_ns_ : 0;
  last_look_ns_ = now_ns;
  std::map<int, Seen> seen_now;
  bool moved = false;
  // Summed over every thread of every descendant: work moves between a process's threads (a bench's
  // main thread and the driver's callback thread), and on a loaded machine none of them alone may get
  // the fraction of a CPU that the tree as a whole uses.
  std::uint64_t used_ns = 0;
  for (pid_t process : find_process_tree(root_, 0)) {
    for (int tid : list_threads(process)) {
      std::optional<ProcThreadState> state = read_thread_state(process, tid);
      if (!state) continue;  // gone since the listing
      const bool sleeping = sleeps_on_a_timer(*state);
      seen_now[tid] = Seen{state->cpu_ns, state->timeslices, sleeping};
      auto before = seen_.find(tid);
      if (before == seen_.end()) {
        moved = true;  // new: the benefit of the doubt, once
        continue;
      }
      if (state->state == 'Z' || state->state == 'X') {
        moved = true;  // ended, not yet reaped: its parent is about to be woken
        continue;
      }
      used_ns += state->cpu_ns >= before->second.cpu_ns ? state->cpu_ns - before->second.cpu_ns : 0;
      if (periodic_sleepers_.count(tid) != 0) continue;
      if (state->state == 'R') {
        moved = true;  // on a CPU now (a sleep that just ended, work that just began)
        continue;
      }
      if (!sleeping) continue;
      if (before->second.sleeping && before->second.timeslices != state->timeslices) {
        periodic_sleepers_.insert(tid);
      } else {
        moved = true;  // one long sleep, still going (or just begun)
      }
    }
  }
  if (interval_ns > 0 && static_cast<double>(used_ns) >= cpu_progress_fraction_ * static_cast<double>(interval_ns))
    moved = true;
  // A thread seen at the last look and gone now ended: a child that finished since then is the work the
  // program waited for, and it may not have been woken yet.
  for (const auto& [tid, seen] : seen_) {
    if (seen_now.count(tid) == 0) moved = true;
  }
  seen_ = std::move(seen_now);
  return moved;
}

}  // namespace gilsan::watchdog
