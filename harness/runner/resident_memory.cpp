#include "harness/runner/resident_memory.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

namespace gilsan {
namespace {

std::size_t resident_bytes_of(pid_t pid) {
  // statm: size resident shared text lib data dt, in pages.
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::size_t size_pages = 0;
  std::size_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return resident_pages * page;
}

void add_children(pid_t pid, std::vector<pid_t>& found) {
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    std::ifstream children(task.path() / "children");
    pid_t child = 0;
    while (children >> child) found.push_back(child);
  }
}

}  // namespace

std::size_t resident_bytes_of_tree(pid_t root) {
  std::vector<pid_t> pending{root};
  std::size_t total = 0;
  // A bound on the walk: a fork bomb must not turn one tick into an endless one.
  constexpr std::size_t kMostProcesses = 4096;
  for (std::size_t visited = 0; !pending.empty() && visited < kMostProcesses; ++visited) {
    const pid_t pid = pending.back();
    pending.pop_back();
    total += resident_bytes_of(pid);
    add_children(pid, pending);
  }
  return total;
}

std::optional<std::size_t> parse_byte_size(const std::string& text) {
  std::size_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end == text.data() || number == 0) return std::nullopt;
  const std::string_view unit(end, text.data() + text.size() - end);
  std::size_t scale = 1;
  if (unit == "k" || unit == "K") {
    scale = std::size_t{1} << 10;
  } else if (unit == "m" || unit == "M") {
    scale = std::size_t{1} << 20;
  } else if (unit == "g" || unit == "G") {
    scale = std::size_t{1} << 30;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (number > std::numeric_limits<std::size_t>::max() / scale) return std::nullopt;
  return number * scale;
}

std::string byte_size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (bytes >= kMiB) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace gilsan
