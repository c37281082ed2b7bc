#include "checkers/sources/watched_callers.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "harness/symbols/module_owner.h"

namespace gilsan::checkers {
namespace {

std::string_view file_name(std::string_view path) { return path.substr(path.find_last_of('/') + 1); }

// The runtimes under every program and gilsan's own pieces in the process: their locks are theirs.
constexpr std::array<std::string_view, 9> kRuntimePrefixes = {
    "libc.so", "libc-", "ld-linux", "libpthread", "libstdc++", "libgcc_s", "libcupti", "libgilsan_inject",
    "libgilsan_native_locks"};

// The whole file, with plain reads: no stream, no locale, nothing that locks beyond malloc.
std::string read_whole(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  std::array<char, 16384> chunk{};
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got <= 0) break;
    text.append(chunk.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

// Skips one field and the spaces after it.
std::string_view after_field(std::string_view text) {
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return {};
  const std::size_t next = text.find_first_not_of(' ', space);
  return next == std::string_view::npos ? std::string_view{} : text.substr(next);
}

// One line of maps: "BEGIN-END PERMS OFFSET DEV INODE [PATH]"; false for a line of another shape.
bool parse_line(std::string_view line, ExecutableMapping& mapping, bool& executable) {
  const char* end = line.data() + line.size();
  std::uintptr_t begin = 0;
  std::uintptr_t finish = 0;
  auto parsed = std::from_chars(line.data(), end, begin, 16);
  if (parsed.ec != std::errc{} || parsed.ptr == end || *parsed.ptr != '-') return false;
  parsed = std::from_chars(parsed.ptr + 1, end, finish, 16);
  if (parsed.ec != std::errc{} || end - parsed.ptr < 5 || parsed.ptr[0] != ' ') return false;
  executable = parsed.ptr[3] == 'x';
  std::string_view rest(parsed.ptr + 1, static_cast<std::size_t>(end - parsed.ptr - 1));
  // PERMS OFFSET DEV: each followed by more; INODE may end the line (an anonymous mapping).
  for (int field = 0; field < 3; ++field) {
    rest = after_field(rest);
    if (rest.empty()) return false;
  }
  const std::size_t space = rest.find(' ');
  const std::size_t path = space == std::string_view::npos ? std::string_view::npos : rest.find_first_not_of(' ', space);
  mapping = {begin, finish, path == std::string_view::npos ? std::string() : std::string(rest.substr(path))};
  return true;
}

}  // namespace

bool is_watched_module(std::string_view path) {
  if (path.empty() || path.front() == '[') return false;
  const std::string_view name = file_name(path);
  if (name == "gilsan") return false;  // the scenario child is gilsan's executable
  if (!symbols::owner_of_module(path).empty()) return false;
  return std::none_of(kRuntimePrefixes.begin(), kRuntimePrefixes.end(),
                      [name](std::string_view prefix) { return name.starts_with(prefix); });
}

std::vector<ExecutableMapping> read_executable_mappings(const std::string& maps_path) {
  std::vector<ExecutableMapping> mappings;
  const std::string text = read_whole(maps_path);
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    ExecutableMapping mapping;
    bool executable = false;
    if (parse_line(line, mapping, executable) && executable) mappings.push_back(std::move(mapping));
  }
  return mappings;
}

WatchedCallers::WatchedCallers(std::string maps_path) : maps_path_(std::move(maps_path)) {}

WatchedCallers::~WatchedCallers() = default;

const WatchedCallers::Range* WatchedCallers::lookup(const Table& table, std::uintptr_t address) {
  auto after = std::upper_bound(table.ranges.begin(), table.ranges.end(), address,
                                [](std::uintptr_t value, const Range& range) { return value < range.begin; });
  if (after == table.ranges.begin()) return nullptr;
  const Range& range = *std::prev(after);
  return address < range.end ? &range : nullptr;
}

const WatchedCallers::Table* WatchedCallers::read_again() {
  auto table = std::make_unique<Table>();
  for (ExecutableMapping& mapping : read_executable_mappings(maps_path_)) {
    const bool watched = is_watched_module(mapping.path);
    std::string module(file_name(mapping.path));
    table->ranges.push_back({mapping.begin, mapping.end, watched, std::move(module)});
  }
  std::sort(table->ranges.begin(), table->ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  const Table* fresh = table.get();
  tables_.push_back(std::move(table));
  reads_.fetch_add(1, std::memory_order_relaxed);
  current_.store(fresh, std::memory_order_release);
  return fresh;
}

WatchedCallers::Caller WatchedCallers::find(std::uintptr_t call_site) {
  const Table* table = current_.load(std::memory_order_acquire);
  const Range* range = table != nullptr ? lookup(*table, call_site) : nullptr;
  if (range == nullptr) {
    // Another thread reading now, or reads used up: this call site is left out this time.
    if (reads_.load(std::memory_order_relaxed) >= kMostReads || reading_.test_and_set(std::memory_order_acquire)) {
      return {};
    }
    try {
      range = lookup(*read_again(), call_site);
    } catch (...) {
      range = nullptr;  // no memory for the table: left out, never thrown into a lock call
    }
    reading_.clear(std::memory_order_release);
  }
  if (range == nullptr) return {};
  return {true, range->watched, range->module};
}

}  // namespace gilsan::checkers
