#include "checkers/sources/native_stack.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "harness/symbols/elf_symbols.h"
#include "harness/symbols/source_lines.h"

namespace gilsan::checkers {
namespace {

constexpr std::string_view kRawPrefix = "0x";

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The .symtab of each object asked about, by path; a file that cannot be read is remembered as
// empty, so it is not read again. Objects stay mapped while the process runs reports, and a path
// reused by another object after dlclose would only name frames wrongly, never crash.
class StaticSymbolCache {
 public:
  const watchdog::ElfSymbols* symbols_of(const std::string& path) {
    std::lock_guard lock(mutex_);
    auto [entry, inserted] = objects_.try_emplace(path);
    if (inserted) {
      try {
        entry->second = std::make_unique<watchdog::ElfSymbols>(watchdog::ElfSymbols::load(path));
      } catch (const std::exception&) {
        // Not readable or not ELF (a deleted file, a memfd): no static names for it.
      }
    }
    return entry->second.get();
  }

  // File:line and inlined calls of the code at `in_file` (the object's own address), innermost first.
  std::vector<watchdog::SourceFrame> source_of(const std::string& path, std::uint64_t in_file) {
    std::lock_guard lock(mutex_);
    auto [entry, inserted] = lines_.try_emplace(path);
    if (inserted) entry->second = watchdog::SourceLines::open(path);
    return entry->second ? entry->second->frames_at(in_file) : std::vector<watchdog::SourceFrame>{};
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<watchdog::ElfSymbols>> objects_;
  std::map<std::string, std::unique_ptr<watchdog::SourceLines>> lines_;  // nullptr: no DWARF
};

StaticSymbolCache& static_symbols() {
  static auto* const cache = new StaticSymbolCache();  // never destroyed: reports may come at exit
  return *cache;
}

std::string offset_suffix(std::uintptr_t offset) { return offset != 0 ? "+" + hex(offset) : ""; }

struct StaticSymbol {
  std::string name;  // demangled
  std::uintptr_t offset = 0;
};

// The object mapping `address` and the address in the object's own terms (the mapped one less its
// load bias, 0 for a fixed executable).
struct ObjectAddress {
  std::string path;
  std::uint64_t in_file = 0;
};

std::optional<ObjectAddress> object_address(const void* address) {
  Dl_info info{};
  link_map* map = nullptr;
  if (::dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr) {
    return std::nullopt;
  }
  // The main program's link map has an empty name.
  return ObjectAddress{map->l_name != nullptr && map->l_name[0] != '\0' ? map->l_name : "/proc/self/exe",
                       reinterpret_cast<std::uintptr_t>(address) - map->l_addr};
}

std::optional<StaticSymbol> find_static_symbol(const void* address) {
  const auto object = object_address(address);
  if (!object) return std::nullopt;
  const watchdog::ElfSymbols* symbols = static_symbols().symbols_of(object->path);
  if (symbols == nullptr) return std::nullopt;
  const std::uint64_t in_file = object->in_file;
  const watchdog::ElfSymbols::Symbol* symbol = symbols->find(in_file);
  if (symbol == nullptr) return std::nullopt;
  return StaticSymbol{watchdog::demangle(symbol->name), in_file - symbol->address};
}

// A raw frame as symbolize_native_stack names it: a line per call inlined there (innermost first),
// then the function's own, each with its file:line when the object has DWARF.
std::vector<std::string> frame_names(std::uintptr_t address) {
  // A return address points after the call: look up the byte before it, so that a call that is
  // the last instruction of its function is not taken for the next function.
  const void* inside = reinterpret_cast<const void*>(address - 1);
  Dl_info info{};
  if (::dladdr(inside, &info) == 0) return {hex(address)};
  const std::string object = info.dli_fname != nullptr ? base_name(info.dli_fname) : "";
  std::string function;
  if (info.dli_sname != nullptr) {
    function = watchdog::demangle(info.dli_sname) +
               offset_suffix(address - reinterpret_cast<std::uintptr_t>(info.dli_saddr));
  } else if (auto symbol = find_static_symbol(inside)) {
    function = symbol->name + offset_suffix(symbol->offset + 1);  // measured from address - 1
  }
  std::vector<watchdog::SourceFrame> sources;
  if (const auto where = object_address(inside)) sources = static_symbols().source_of(where->path, where->in_file);
  std::vector<std::string> names;
  const std::string in_object = object.empty() ? "" : " (" + object + ")";
  for (std::size_t i = 0; i + 1 < sources.size(); ++i) {
    names.push_back("[inlined] " + (sources[i].function.empty() ? "??" : sources[i].function) + in_object +
                    watchdog::source_suffix(sources[i]));
  }
  if (function.empty() && !sources.empty()) function = sources.back().function;
  if (function.empty()) function = hex(address);
  names.push_back(function + in_object + (sources.empty() ? "" : watchdog::source_suffix(sources.back())));
  return names;
}

std::optional<std::uintptr_t> raw_address(std::string_view frame) {
  if (!frame.starts_with(kRawPrefix)) return std::nullopt;
  std::uintptr_t address = 0;
  const char* begin = frame.data() + kRawPrefix.size();
  const char* end = frame.data() + frame.size();
  const auto [stop, error] = std::from_chars(begin, end, address, 16);
  if (error != std::errc() || stop != end || begin == end) return std::nullopt;
  return address;
}

}  // namespace

void prepare_native_stack_capture() {
  void* frame = nullptr;
  ::backtrace(&frame, 1);
  // libdw too, for the same reason: a report may be made inside a driver call.
  watchdog::SourceLines::unavailable_reason();
}

// Not inlined: its caller's frame is found by this function's own return address.
__attribute__((noinline)) Stack capture_native_stack(std::size_t depth) {
  constexpr int kMaxDepth = 64;
  constexpr int kOwnFramesAtMost = 4;  // this function's, and an interceptor's (ASan wraps backtrace)
  void* addresses[kMaxDepth + kOwnFramesAtMost];
  const int wanted = static_cast<int>(std::min<std::size_t>(depth, kMaxDepth)) + kOwnFramesAtMost;
  const int count = ::backtrace(addresses, wanted);
  // The frames above this one start at the caller's return address, wherever backtrace put it.
  const void* caller = __builtin_return_address(0);
  int first = 0;
  while (first < count && first < kOwnFramesAtMost && addresses[first] != caller) ++first;
  if (first == count || addresses[first] != caller) first = std::min(count, 1);
  const int last = std::min(count, first + static_cast<int>(std::min<std::size_t>(depth, kMaxDepth)));
  Stack stack;
  stack.reserve(static_cast<std::size_t>(std::max(0, last - first)));
  for (int i = first; i < last; ++i) stack.push_back(hex(reinterpret_cast<std::uintptr_t>(addresses[i])));
  return stack;
}

void symbolize_native_stack(Stack& stack, const std::vector<std::string_view>& own_frames) {
  bool any_raw = false;
  Stack named;
  named.reserve(stack.size());
  for (std::string& frame : stack) {
    if (auto address = raw_address(frame)) {
      for (std::string& name : frame_names(*address)) named.push_back(std::move(name));
      any_raw = true;
    } else {
      named.push_back(std::move(frame));
    }
  }
  stack = std::move(named);
  if (!any_raw) return;
  auto own = [&](const std::string& frame) {
    return std::any_of(own_frames.begin(), own_frames.end(),
                       [&](std::string_view mark) { return frame.find(mark) != std::string::npos; });
  };
  std::size_t drop = 0;
  while (drop + 1 < stack.size() && own(stack[drop])) ++drop;
  stack.erase(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(drop));
}

std::string static_symbol_name(const void* address) {
  const auto symbol = find_static_symbol(address);
  return symbol ? symbol->name + offset_suffix(symbol->offset) : "";
}

}  // namespace gilsan::checkers
