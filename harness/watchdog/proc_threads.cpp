#include "harness/watchdog/proc_threads.h"

#include <dirent.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gilsan::watchdog {
namespace {

std::string task_path(pid_t pid, int tid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + file;
}

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line) && !in.eof()) return std::nullopt;
  return line;
}

struct NamedSyscall {
  long number;
  const char* name;
  bool waits;  // may wait indefinitely for another thread or process
};

// The system calls a blocked thread is usually found in. Others are named by number.
const NamedSyscall kSyscalls[] = {
    {SYS_futex, "futex", true},
#ifdef SYS_futex_waitv
    {SYS_futex_waitv, "futex_waitv", true},
#endif
#ifdef SYS_poll
    {SYS_poll, "poll", true},
#endif
    {SYS_ppoll, "ppoll", true},
#ifdef SYS_select
    {SYS_select, "select", true},
#endif
    {SYS_pselect6, "pselect6", true},
#ifdef SYS_epoll_wait
    {SYS_epoll_wait, "epoll_wait", true},
#endif
    {SYS_epoll_pwait, "epoll_pwait", true},
    {SYS_read, "read", true},
    {SYS_readv, "readv", true},
    {SYS_write, "write", true},
    {SYS_recvfrom, "recvfrom", true},
    {SYS_recvmsg, "recvmsg", true},
    {SYS_accept4, "accept4", true},
#ifdef SYS_accept
    {SYS_accept, "accept", true},
#endif
    {SYS_wait4, "wait4", true},
    {SYS_waitid, "waitid", true},
#ifdef SYS_pause
    {SYS_pause, "pause", true},
#endif
    {SYS_rt_sigsuspend, "rt_sigsuspend", true},
    {SYS_rt_sigtimedwait, "rt_sigtimedwait", true},
    {SYS_semtimedop, "semtimedop", true},
#ifdef SYS_semop
    {SYS_semop, "semop", true},
#endif
    {SYS_msgrcv, "msgrcv", true},
    {SYS_flock, "flock", true},
    {SYS_ioctl, "ioctl", true},
    {SYS_nanosleep, "nanosleep", false},
    {SYS_clock_nanosleep, "clock_nanosleep", false},
    {SYS_sched_yield, "sched_yield", false},
};

}  // namespace

std::vector<int> list_threads(pid_t pid) {
  std::vector<int> tids;
  std::string path = "/proc/" + std::to_string(pid) + "/task";
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) return tids;
  while (dirent* entry = ::readdir(directory)) {
    char* end = nullptr;
    long tid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<int>(tid));
  }
  ::closedir(directory);
  std::sort(tids.begin(), tids.end());
  return tids;
}

bool parse_stat_line(const std::string& line, ProcThreadState& state) {
  // "TID (comm) S ppid ..." where comm may itself contain spaces and parentheses.
  auto open = line.find('(');
  auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= line.size()) {
    return false;
  }
  state.comm = line.substr(open + 1, close - open - 1);
  state.state = line[close + 2];
  return true;
}

SyscallState parse_syscall_line(const std::string& line) {
  SyscallState result;
  if (line.rfind("running", 0) == 0) {
    result.kind = SyscallState::Kind::Running;
    return result;
  }
  std::istringstream in(line);
  long number = 0;
  if (!(in >> number)) return result;
  if (number < 0) {
    result.kind = SyscallState::Kind::NotInSyscall;
  } else {
    result.kind = SyscallState::Kind::InSyscall;
    result.number = number;
  }
  return result;
}

std::optional<ProcThreadState> read_thread_state(pid_t pid, int tid) {
  auto stat = read_first_line(task_path(pid, tid, "stat"));
  if (!stat) return std::nullopt;
  ProcThreadState state;
  if (!parse_stat_line(*stat, state)) return std::nullopt;
  if (auto comm = read_first_line(task_path(pid, tid, "comm"))) state.comm = *comm;
  if (auto wchan = read_first_line(task_path(pid, tid, "wchan")); wchan && *wchan != "0") state.wchan = *wchan;
  if (auto syscall = read_first_line(task_path(pid, tid, "syscall"))) state.syscall = parse_syscall_line(*syscall);
  if (auto schedstat = read_first_line(task_path(pid, tid, "schedstat"))) {
    std::istringstream fields(*schedstat);
    std::uint64_t waited_ns = 0;
    fields >> state.cpu_ns >> waited_ns >> state.timeslices;
  }
  return state;
}

std::string syscall_name(long number) {
  for (const NamedSyscall& known : kSyscalls) {
    if (known.number == number) return known.name;
  }
  return "syscall " + std::to_string(number);
}

bool is_waiting_syscall(long number) {
  for (const NamedSyscall& known : kSyscalls) {
    if (known.number == number) return known.waits;
  }
  return false;
}

bool looks_blocked(const ProcThreadState& state) {
  if (state.state == 'D') return true;
  if (state.state != 'S') return false;
  return state.syscall.kind == SyscallState::Kind::InSyscall && is_waiting_syscall(state.syscall.number);
}

bool sleeps_on_a_timer(const ProcThreadState& state) {
  if (state.syscall.kind != SyscallState::Kind::InSyscall) return false;
  const std::string name = syscall_name(state.syscall.number);
  return name == "nanosleep" || name == "clock_nanosleep";
}

}  // namespace gilsan::watchdog
