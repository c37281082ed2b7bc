#include "harness/runner/run_folders.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gilsan {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "gilsan-";
constexpr std::size_t kTemplateLength = 6;  // mkdtemp's XXXXXX

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

bool ours(const fs::path& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 && status.st_uid == ::getuid();
}

template <typename Keep>
std::vector<std::string> remove_run_folders(const std::vector<std::string>& parents, Keep keep) {
  std::vector<std::string> removed;
  for (const std::string& parent : parents) {
    std::error_code error;
    for (fs::directory_iterator it(parent, error), end; !error && it != end; it.increment(error)) {
      const pid_t owner = run_folder_owner(it->path().filename().string());
      if (owner <= 0 || keep(owner) || !ours(it->path())) continue;
      std::error_code ignored;
      if (fs::remove_all(it->path(), ignored) > 0) removed.push_back(it->path().string());
    }
  }
  return removed;
}

}  // namespace

std::string run_folder_prefix(std::string_view kind, pid_t owner) {
  return std::string(kPrefix) + std::string(kind) + "-" + std::to_string(owner);
}

std::string make_run_folder(const std::string& parent, std::string_view kind) {
  std::string pattern = parent + "/" + run_folder_prefix(kind, ::getpid()) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "cannot make a " + std::string(kind) + " folder in " + parent);
  return pattern;
}

std::vector<std::string> temporary_folders() {
  std::vector<std::string> folders;
  const char* tmpdir = std::getenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe): read before threads start
  for (std::string folder : {std::string(tmpdir != nullptr ? tmpdir : ""), std::string("/dev/shm"), std::string("/tmp")}) {
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    if (!folder.empty() && std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
  }
  return folders;
}

// gilsan-KIND-PID-XXXXXX: KIND is letters, PID digits, the tail mkdtemp's six characters.
pid_t run_folder_owner(std::string_view name) {
  if (!name.starts_with(kPrefix) || name.size() < kPrefix.size() + kTemplateLength + 4) return -1;
  const std::string_view tail = name.substr(name.size() - kTemplateLength - 1);
  if (tail.front() != '-') return -1;
  std::string_view middle = name.substr(kPrefix.size(), name.size() - kPrefix.size() - tail.size());
  const std::size_t dash = middle.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return -1;
  const std::string_view kind = middle.substr(0, dash);
  if (!std::all_of(kind.begin(), kind.end(), [](char c) { return c >= 'a' && c <= 'z'; })) return -1;
  const std::string_view digits = middle.substr(dash + 1);
  pid_t pid = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || pid <= 0) return -1;
  return pid;
}

std::vector<std::string> remove_run_folders_of(pid_t owner, const std::vector<std::string>& parents) {
  return remove_run_folders(parents, [owner](pid_t folder_owner) { return folder_owner != owner; });
}

std::vector<std::string> remove_leftovers_of_dead_runs(const std::vector<std::string>& parents) {
  return remove_run_folders(parents, [](pid_t folder_owner) { return alive(folder_owner); });
}

}  // namespace gilsan
