#include "harness/runner/run_marker.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <set>
#include <string_view>

#include "harness/runner/unique_fd.h"

namespace gilsan {
namespace {

// True when the NUL-separated environment block of `pid` holds `entry` as one of its strings, or with
// `prefix`, a string that begins with `entry`.
bool environment_holds(pid_t pid, const std::string& entry, bool prefix) {
  UniqueFd file(::open(("/proc/" + std::to_string(pid) + "/environ").c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.valid()) return false;  // gone, or not ours to read
  std::string block;
  char buffer[8192];
  for (ssize_t n; (n = ::read(file.get(), buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    block.append(buffer, static_cast<std::size_t>(n));
  }
  for (std::size_t start = 0; start < block.size();) {
    const std::size_t end = block.find('\0', start);
    const std::string_view one(block.data() + start, (end == std::string::npos ? block.size() : end) - start);
    if (prefix ? one.starts_with(entry) : one == entry) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

void pause() {
  const timespec five_ms{0, 5'000'000};
  ::nanosleep(&five_ms, nullptr);
}

}  // namespace

std::string new_run_marker() {
  static std::atomic<unsigned long long> runs{0};
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return std::to_string(::getpid()) + "-" + std::to_string(runs.fetch_add(1) + 1) + "-" +
         std::to_string(now.tv_sec) + "." + std::to_string(now.tv_nsec);
}

namespace {

std::vector<pid_t> processes_whose_marker(const std::string& entry, bool prefix) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = ::getpid();
  while (const dirent* item = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(item->d_name, &end, 10);
    if (end == item->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    // Only our own user's processes let us read their environment: the others are skipped.
    if (environment_holds(static_cast<pid_t>(pid), entry, prefix)) found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return found;
}

}  // namespace

std::vector<pid_t> processes_with_marker(const std::string& marker) {
  return processes_whose_marker(std::string(kRunMarkerVariable) + "=" + marker, false);
}

std::vector<pid_t> processes_of_runs_by(pid_t owner) {
  return processes_whose_marker(std::string(kRunMarkerVariable) + "=" + std::to_string(owner) + "-", true);
}

int kill_marked_processes(const std::string& marker, std::chrono::milliseconds limit) {
  std::set<pid_t> killed;
  const auto give_up_at = std::chrono::steady_clock::now() + limit;
  while (true) {
    const std::vector<pid_t> marked = processes_with_marker(marker);
    for (pid_t pid : marked) {
      if (::kill(pid, SIGKILL) == 0) killed.insert(pid);
    }
    if (marked.empty() || std::chrono::steady_clock::now() >= give_up_at) break;
    pause();
  }
  // Reap those that became ours (the runner is a child subreaper). A zombie has no environment left,
  // so the scan above no longer sees it: wait for each by pid until it is reaped or not ours (ECHILD).
  std::set<pid_t> unreaped = killed;
  while (!unreaped.empty()) {
    for (auto it = unreaped.begin(); it != unreaped.end();) {
      const pid_t waited = ::waitpid(*it, nullptr, WNOHANG);
      it = (waited == *it || (waited < 0 && errno != EINTR)) ? unreaped.erase(it) : std::next(it);
    }
    if (unreaped.empty() || std::chrono::steady_clock::now() >= give_up_at) break;
    pause();
  }
  return static_cast<int>(killed.size());
}

}  // namespace gilsan
