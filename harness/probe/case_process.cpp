#include "harness/probe/case_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

extern char** environ;

namespace gilsan::probe {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kOutputTail = 4096;
// Pipe ends live above the standard descriptors and the report descriptor, so placing them at
// 1, 2 and 3 in the child can never overwrite one another.
constexpr int kLowestPipeFd = 10;

[[noreturn]] void throw_system_error(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read_end;
  Fd write_end;
};

Fd moved_high(int fd) {
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kLowestPipeFd);
  int error = errno;
  ::close(fd);
  if (high < 0) throw_system_error(error, "fcntl(F_DUPFD_CLOEXEC)");
  return Fd(high);
}

Pipe make_pipe() {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw_system_error(errno, "pipe2");
  Pipe pipe{moved_high(ends[0]), moved_high(ends[1])};
  int flags = ::fcntl(pipe.read_end.get(), F_GETFL);
  if (flags < 0 || ::fcntl(pipe.read_end.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    throw_system_error(errno, "fcntl(O_NONBLOCK)");
  }
  return pipe;
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& text : strings) out.push_back(const_cast<char*>(text.c_str()));
  out.push_back(nullptr);
  return out;
}

struct Child {
  pid_t pid = -1;
  Fd report;
  Fd output;
};

Child spawn_case(const SelfCommand& self, const CaseRequest& request) {
  Pipe report = make_pipe();
  Pipe output = make_pipe();
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  if (int e = posix_spawn_file_actions_init(&actions); e != 0) throw_system_error(e, "posix_spawn_file_actions_init");
  std::unique_ptr<posix_spawn_file_actions_t, int (*)(posix_spawn_file_actions_t*)> actions_guard(
      &actions, posix_spawn_file_actions_destroy);
  if (int e = posix_spawnattr_init(&attributes); e != 0) throw_system_error(e, "posix_spawnattr_init");
  std::unique_ptr<posix_spawnattr_t, int (*)(posix_spawnattr_t*)> attributes_guard(&attributes,
                                                                                    posix_spawnattr_destroy);
  auto check = [](int error, const char* what) {
    if (error != 0) throw_system_error(error, what);
  };
  check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen(/dev/null)");
  check(posix_spawn_file_actions_adddup2(&actions, output.write_end.get(), 1), "adddup2(stdout)");
  check(posix_spawn_file_actions_adddup2(&actions, output.write_end.get(), 2), "adddup2(stderr)");
  check(posix_spawn_file_actions_adddup2(&actions, report.write_end.get(), kCaseReportFd), "adddup2(report)");
  sigset_t all_signals;
  sigset_t no_signals;
  sigfillset(&all_signals);
  sigemptyset(&no_signals);
  // Group 0: a new process group whose id is the child's pid, so the group can be killed whole.
  check(posix_spawnattr_setpgroup(&attributes, 0), "setpgroup");
  check(posix_spawnattr_setsigdefault(&attributes, &all_signals), "setsigdefault");
  check(posix_spawnattr_setsigmask(&attributes, &no_signals), "setsigmask");
  check(posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK),
        "setflags");

  std::vector<std::string> arguments = self.argv_prefix;
  arguments.insert(arguments.end(), request.arguments.begin(), request.arguments.end());
  std::vector<char*> argv = pointers(arguments);
  std::vector<char*> envp = pointers(self.environment);
  Child child;
  if (int e = posix_spawn(&child.pid, self.executable.c_str(), &actions, &attributes, argv.data(), envp.data()); e != 0)
    throw_system_error(e, "posix_spawn(" + self.executable + ") for case '" + request.label + "'");
  child.report = std::move(report.read_end);
  child.output = std::move(output.read_end);
  return child;  // our write ends close here: EOF on a pipe then means every writer is gone
}

// One case in flight.
struct Slot {
  std::size_t index = 0;
  Child child;
  Clock::time_point started;
  Clock::time_point deadline;
  std::string partial_line;
  CaseResult result;
};

// Reads what is available; false at EOF or on error (the descriptor is then closed).
bool drain(Fd& fd, std::string& into) {
  char buffer[4096];
  for (;;) {
    ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got > 0) {
      into.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    fd.reset();
    return false;
  }
}

void take_lines(Slot& slot) {
  std::size_t newline;
  while ((newline = slot.partial_line.find('\n')) != std::string::npos) {
    std::string line = slot.partial_line.substr(0, newline);
    slot.partial_line.erase(0, newline + 1);
    auto parsed = parse_case_line(line);
    if (!parsed) continue;
    if (parsed->key == key::kDeadline) {
      // The child knows when its measured call began; from then on it gets only this long.
      long long ms = std::atoll(parsed->value(0).c_str());
      if (ms > 0) slot.deadline = std::min(slot.deadline, Clock::now() + std::chrono::milliseconds(ms));
    }
    slot.result.lines.push_back(std::move(*parsed));
  }
}

void read_available(Slot& slot) {
  if (slot.child.report.get() >= 0) {
    drain(slot.child.report, slot.partial_line);
    take_lines(slot);
  }
  if (slot.child.output.get() >= 0) {
    drain(slot.child.output, slot.result.output);
    if (slot.result.output.size() > 2 * kOutputTail)
      slot.result.output.erase(0, slot.result.output.size() - kOutputTail);
  }
}

// True once the child has exited; it stays a zombie (not reaped), so its pid, and with it the
// process group id, cannot be reused before the group is killed.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return info.si_pid == pid;
}

// Kills whatever is left of the group, reaps the leader and records how it ended.
void finish(Slot& slot, bool at_deadline) {
  ::kill(-slot.child.pid, SIGKILL);
  int status = 0;
  while (::waitpid(slot.child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  CaseResult& result = slot.result;
  result.killed_at_deadline = at_deadline;
  if (!at_deadline) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  // Members of the group the case left behind are killed too. The probe is a child subreaper, so
  // those whose parent died were re-parented to it and are reaped here, not left as zombies.
  auto give_up = Clock::now() + std::chrono::seconds(2);
  for (;;) {
    ::kill(-slot.child.pid, SIGKILL);
    while (::waitpid(-slot.child.pid, nullptr, WNOHANG) > 0) {
    }
    if (::kill(-slot.child.pid, 0) != 0 || Clock::now() >= give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.group_left_behind = ::kill(-slot.child.pid, 0) == 0;
  read_available(slot);
  if (!slot.partial_line.empty()) {
    slot.partial_line += "\n";
    take_lines(slot);
  }
  if (result.output.size() > kOutputTail) result.output.erase(0, result.output.size() - kOutputTail);
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - slot.started);
}

}  // namespace

const CaseLine* CaseResult::find(std::string_view wanted) const {
  for (const auto& line : lines)
    if (line.key == wanted) return &line;
  return nullptr;
}

std::string CaseResult::how_it_ended() const {
  if (killed_at_deadline) return "killed at its deadline after " + std::to_string(elapsed.count()) + " ms";
  if (signal != 0) {
    const char* description = ::sigdescr_np(signal);  // thread-safe, unlike strsignal; null when unknown
    return "killed by signal " + std::to_string(signal) + " (" + (description != nullptr ? description : "unknown") + ")";
  }
  return "exited with status " + std::to_string(exit_code);
}

SelfCommand self_command(const std::vector<std::string>& command_arguments) {
  SelfCommand self;
  std::error_code error;
  char path[4096];
  ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) throw std::runtime_error("cannot re-execute the probe: readlink(/proc/self/exe) failed");
  self.executable.assign(path, static_cast<std::size_t>(length));

  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find('\0', at);
    if (end == std::string::npos) end = all.size();
    argv.emplace_back(all.substr(at, end - at));
    at = end + 1;
  }
  if (argv.size() < command_arguments.size() + 1 ||
      !std::equal(command_arguments.rbegin(), command_arguments.rend(), argv.rbegin()))
    throw std::runtime_error(
        "cannot re-execute the probe: its arguments are not the tail of /proc/self/cmdline");
  self.argv_prefix.assign(argv.begin(), argv.end() - static_cast<std::ptrdiff_t>(command_arguments.size()));
  self.environment = environment_with({}, {});
  return self;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& set,
                                          const std::vector<std::string>& removed) {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    std::string name = text.substr(0, text.find('='));
    if (set.contains(name) || std::find(removed.begin(), removed.end(), name) != removed.end()) continue;
    out.push_back(std::move(text));
  }
  for (const auto& [name, value] : set) out.push_back(name + "=" + value);
  return out;
}

std::vector<CaseResult> run_cases(const SelfCommand& self, const std::vector<CaseRequest>& requests, int jobs,
                                  const std::function<void(const CaseResult&)>& on_done) {
  std::vector<CaseResult> results(requests.size());
  std::vector<std::unique_ptr<Slot>> running;
  std::size_t next = 0;
  if (jobs < 1) jobs = 1;
  // Orphans of a case (a process its child started) are re-parented to us, so finish() can reap them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);

  while (next < requests.size() || !running.empty()) {
    while (running.size() < static_cast<std::size_t>(jobs) && next < requests.size()) {
      auto slot = std::make_unique<Slot>();
      slot->index = next;
      slot->result.label = requests[next].label;
      slot->started = Clock::now();
      slot->deadline = slot->started + requests[next].limit;
      try {
        slot->child = spawn_case(self, requests[next]);
      } catch (...) {
        for (auto& other : running) finish(*other, true);  // nothing of this run may outlive it
        throw;
      }
      running.push_back(std::move(slot));
      ++next;
    }

    std::vector<pollfd> fds;
    for (const auto& slot : running) {
      if (slot->child.report.get() >= 0) fds.push_back(pollfd{slot->child.report.get(), POLLIN, 0});
      if (slot->child.output.get() >= 0) fds.push_back(pollfd{slot->child.output.get(), POLLIN, 0});
    }
    // A short poll: exits and deadlines are checked between polls, not signalled.
    ::poll(fds.data(), fds.size(), 10);

    for (auto it = running.begin(); it != running.end();) {
      Slot& slot = **it;
      read_available(slot);
      bool exited = has_exited(slot.child.pid);
      bool late = !exited && Clock::now() >= slot.deadline;
      if (!exited && !late) {
        ++it;
        continue;
      }
      finish(slot, late);
      if (on_done) on_done(slot.result);
      results[slot.index] = std::move(slot.result);
      it = running.erase(it);
    }
  }
  return results;
}

}  // namespace gilsan::probe
