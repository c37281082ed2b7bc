#include "harness/watchdog/descendant_activity.h"

#include "harness/watchdog/process_cleanup.h"
#include "harness/watchdog/proc_threads.h"

namespace gilsan::watchdog {
namespace {

bool sleeps_on_a_timer(const ProcThreadState& state) {
  if (state.syscall.kind != SyscallState::Kind::InSyscall) return false;
  const std::string name = syscall_name(state.syscall.number);
  return name == "nanosleep" || name == "clock_nanosleep";
}

}  // namespace

bool DescendantActivity::moved_since_last_look() {
  std::map<int, std::uint64_t> cpu_now;
  bool moved = false;
  for (pid_t process : find_process_tree(root_, 0)) {
    for (int tid : list_threads(process)) {
      std::optional<ProcThreadState> state = read_thread_state(process, tid);
      if (!state) continue;  // gone since the listing
      cpu_now[tid] = state->cpu_ns;
      auto before = cpu_ns_by_tid_.find(tid);
      const bool new_or_used_cpu = before == cpu_ns_by_tid_.end() || before->second != state->cpu_ns;
      if (new_or_used_cpu || state->state == 'R' || sleeps_on_a_timer(*state)) moved = true;
    }
  }
  cpu_ns_by_tid_ = std::move(cpu_now);
  return moved;
}

}  // namespace gilsan::watchdog
