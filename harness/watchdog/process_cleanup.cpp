#include "harness/watchdog/process_cleanup.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace gilsan::watchdog {
namespace {

using Clock = std::chrono::steady_clock;

struct ProcessInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  pid_t session = 0;
  char state = '?';
  unsigned long long start_time = 0;  // distinguishes a reused pid
};

std::optional<ProcessInfo> read_process(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  ProcessInfo info;
  info.pid = pid;
  std::string skip;
  fields >> info.state >> info.parent >> info.group >> info.session;
  for (int i = 0; i < 15; ++i) fields >> skip;  // tty_nr .. itrealvalue
  fields >> info.start_time;
  if (!fields) return std::nullopt;
  return info;
}

std::vector<ProcessInfo> scan_processes() {
  std::vector<ProcessInfo> processes;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return processes;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    if (auto info = read_process(static_cast<pid_t>(pid))) processes.push_back(*info);
  }
  ::closedir(proc);
  return processes;
}

std::set<pid_t> descendants(const std::vector<ProcessInfo>& processes, pid_t root) {
  std::multimap<pid_t, pid_t> children;
  for (const ProcessInfo& info : processes) children.emplace(info.parent, info.pid);
  std::set<pid_t> found;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    pid_t parent = frontier.back();
    frontier.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (found.insert(it->second).second) frontier.push_back(it->second);
    }
  }
  return found;
}

// A process group we may signal as a whole: never our own (or "0", which means our own).
bool foreign_group(pid_t group) { return group > 1 && group != ::getpgrp(); }

class TreeKiller {
 public:
  TreeKiller(pid_t child, pid_t group) : child_(child), group_(group) {}

  // Adds every process of the run that is visible now to the known set.
  void refresh() {
    std::vector<ProcessInfo> processes = scan_processes();
    std::set<pid_t> tree = child_ > 0 ? descendants(processes, child_) : std::set<pid_t>{};
    if (child_ > 0) tree.insert(child_);
    pid_t self = ::getpid();
    for (const ProcessInfo& info : processes) {
      if (info.pid == child_ && session_ == 0) session_ = info.session;
    }
    for (const ProcessInfo& info : processes) {
      bool orphan_of_run = info.parent == self && info.pid != child_ &&
                           ((foreign_group(group_) && info.group == group_) || (session_ != 0 && info.session == session_));
      bool member = tree.count(info.pid) != 0 || (foreign_group(group_) && info.group == group_) || orphan_of_run;
      if (info.pid == self) continue;
      if (member && known_.count(info.pid) == 0) known_[info.pid] = info.start_time;
    }
  }

  std::vector<pid_t> alive() const {
    std::vector<pid_t> list;
    for (const auto& [pid, start_time] : known_) {
      auto info = read_process(pid);
      if (info && info->start_time == start_time && info->state != 'Z' && info->state != 'X') list.push_back(pid);
    }
    return list;
  }

  void signal_all(int signal_number) {
    if (foreign_group(group_)) ::kill(-group_, signal_number);
    for (pid_t pid : alive()) {
      if (::kill(pid, signal_number) == 0) signalled_.insert(pid);
    }
  }

  void reap(CleanupResult& result) {
    if (child_ > 0 && !result.child_status) {
      int status = 0;
      if (::waitpid(child_, &status, WNOHANG) == child_) result.child_status = status;
    }
    for (const auto& [pid, start_time] : known_) {
      if (pid == child_) continue;
      int status = 0;
      ::waitpid(pid, &status, WNOHANG);  // only our own children (subreaper orphans) can be reaped
    }
  }

  std::vector<pid_t> signalled() const { return {signalled_.begin(), signalled_.end()}; }

 private:
  pid_t child_;
  pid_t group_;
  pid_t session_ = 0;
  std::map<pid_t, unsigned long long> known_;
  std::set<pid_t> signalled_;
};

}  // namespace

bool become_child_subreaper() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::vector<pid_t> find_process_tree(pid_t root, pid_t process_group) {
  std::vector<ProcessInfo> processes = scan_processes();
  std::set<pid_t> found = descendants(processes, root);
  for (const ProcessInfo& info : processes) {
    if (foreign_group(process_group) && info.group == process_group) found.insert(info.pid);
  }
  found.erase(::getpid());
  return {found.begin(), found.end()};
}

CleanupResult terminate_process_tree(pid_t child, pid_t process_group, const CleanupOptions& options) {
  CleanupResult result;
  TreeKiller killer(child, process_group);
  killer.refresh();
  killer.signal_all(SIGTERM);
  auto term_deadline = Clock::now() + options.term_grace;
  while (Clock::now() < term_deadline) {
    killer.reap(result);
    killer.refresh();
    if (killer.alive().empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto kill_deadline = Clock::now() + options.kill_timeout;
  while (true) {
    killer.refresh();
    killer.reap(result);
    if (killer.alive().empty()) break;
    killer.signal_all(SIGKILL);
    if (Clock::now() >= kill_deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  killer.reap(result);
  result.signalled = killer.signalled();
  result.survivors = killer.alive();
  return result;
}

CleanupResult RunGuard::finish() {
  if (finished_) return {};
  finished_ = true;
  CleanupResult result;
  if (child_ > 0) result = terminate_process_tree(child_reaped_ ? 0 : child_, process_group_, options_);
  board_.remove();
  return result;
}

}  // namespace gilsan::watchdog
