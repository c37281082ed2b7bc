// Whose native locks the sanitizer models: those a library of the program's own takes (an extension,
// a C or C++ library it loads, the program's executable), by the module its call site is in. The
// driver's, the interpreter's (symbols::owner_of_module), the C and C++ runtimes' and gilsan's own
// locks are left out: they are not the program's order, and the model has pseudo-locks for the first two.
//
// The modules come from /proc/self/maps, read again when a call site falls in no executable mapping
// read so far (a library loaded since), never from the loader: dladdr takes the loader's lock, which a
// thread inside dlopen may hold while it waits for a lock the asking thread holds.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan::checkers {

// The policy, by a module's path (a mapping's name in /proc/PID/maps; "" or "[...]" for anonymous code).
bool is_watched_module(std::string_view path);

class WatchedCallers {
 public:
  // `maps_path`: /proc/self/maps, or a file of the same format (tests).
  explicit WatchedCallers(std::string maps_path = "/proc/self/maps");
  WatchedCallers(const WatchedCallers&) = delete;
  WatchedCallers& operator=(const WatchedCallers&) = delete;
  ~WatchedCallers();

  struct Caller {
    bool known = false;  // found in a mapping read (false: a read was under way, or reads are used up)
    bool watched = false;
    std::string_view module;  // the module's file name ("libfoo.so"); lives as long as this object
  };
  // Safe from any thread at once; allocates only when it reads the maps again.
  Caller find(std::uintptr_t call_site);
  // How many times the maps were read (tests).
  int reads() const { return reads_.load(std::memory_order_relaxed); }

 private:
  struct Range {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    bool watched = false;
    std::string module;
  };
  struct Table {
    std::vector<Range> ranges;  // sorted by begin, executable mappings only
  };
  static const Range* lookup(const Table& table, std::uintptr_t address);
  const Table* read_again();

  std::string maps_path_;
  std::atomic<const Table*> current_{nullptr};
  // Every table read stays until this object goes: a reader may still be looking at an older one. Only
  // the thread that holds `reading_` appends; a library loaded makes one more read, and past
  // kMostReads a call site in no known mapping is left out instead.
  std::vector<std::unique_ptr<Table>> tables_;
  std::atomic_flag reading_;
  std::atomic<int> reads_{0};
  static constexpr int kMostReads = 256;
};

// Reads a maps file's executable mappings (tests and WatchedCallers). Each: [begin, end) and the path.
struct ExecutableMapping {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::string path;
};
std::vector<ExecutableMapping> read_executable_mappings(const std::string& maps_path);

}  // namespace gilsan::checkers
