// Symbolizer: turns addresses of another process into function names, from its /proc/PID/maps and the
// symbol tables of the mapped files (ElfSymbols), and into file:line with the calls inlined there
// where a file has DWARF (SourceLines). Read the maps while the process is still alive.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/symbols/elf_symbols.h"
#include "harness/watchdog/snapshot.h"
#include "harness/symbols/source_lines.h"
#include "harness/watchdog/source_lines_cache.h"

namespace gilsan::watchdog {

struct MemoryMapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string permissions;  // "r-xp"
  std::uint64_t file_offset = 0;
  std::string path;  // "" for anonymous memory; "[vdso]", "[stack]"...
};

std::optional<MemoryMapping> parse_maps_line(const std::string& line);
std::vector<MemoryMapping> read_memory_maps(pid_t pid);  // empty when the process is gone

class Symbolizer {
 public:
  Symbolizer(pid_t pid, std::vector<MemoryMapping> mappings);
  static Symbolizer for_process(pid_t pid) { return Symbolizer(pid, read_memory_maps(pid)); }

  // Replaces the address map (the process may have loaded or unloaded libraries since) and keeps the
  // symbol tables already read, so a symbolizer kept across samples reads each file once.
  void update_mappings(std::vector<MemoryMapping> mappings);

  // `return_address`: the address follows a call instruction, so the symbol is looked up one byte
  // earlier (a call may be the last instruction of its function).
  NativeFrame symbolize(std::uint64_t address, bool return_address) const;
  // A data address: the module it lies in (a global past the file's end, in .bss, counts as its
  // module's) and the global or static variable that holds it; symbol "" for heap and stack memory.
  NativeFrame name_data(std::uint64_t address) const;
  // symbolize's frame with its file:line, preceded by a frame for each call inlined at the address
  // (innermost first), when the module has DWARF.
  std::vector<NativeFrame> symbolize_with_inlined(std::uint64_t address, bool return_address) const;
  // frames[0] is the interrupted instruction; the rest are return addresses. Inlined calls add frames.
  // For reports: the first call reads each module's DWARF (tens of milliseconds for a large one).
  std::vector<NativeFrame> symbolize_stack(const std::vector<std::uint64_t>& frames) const;
  // One frame per address, names from the symbol tables only: for the watchdog's per-sample
  // inference (spin checks), which needs function names, fast, and no file:line.
  std::vector<NativeFrame> name_stack(const std::vector<std::uint64_t>& frames) const;

  // The files among `modules` (NativeFrame::module paths) whose symbols could not be read, with the
  // reason (for a report's notes). Asked per report: a symbolizer kept across samples has also tried
  // files that no frame of this report is in.
  std::vector<std::string> problems_in(const std::set<std::string>& modules) const;

  // Opens, on a thread of its own, the DWARF of every file-backed executable mapping of the process
  // not opened yet, so that a snapshot soon after does not wait for it (SourceLinesCache).
  void open_source_lines_ahead();

 private:
  struct Located {
    NativeFrame frame;
    std::optional<std::uint64_t> looked_up;  // the module's own address looked up, when known
  };
  Located locate(std::uint64_t address, bool return_address) const;
  const ElfSymbols* symbols_for(const MemoryMapping& mapping) const;
  const SourceLines* lines_for(const std::string& path) const;

  pid_t pid_;
  std::vector<MemoryMapping> mappings_;  // sorted by start
  mutable std::map<std::string, std::unique_ptr<ElfSymbols>> cache_;  // nullptr: could not be read
  mutable SourceLinesCache lines_;
  // By module and address: a symbolizer kept across samples meets the same waits again, and a DWARF
  // lookup (scope walk) costs ~100 us where a symbol lookup costs ~0.2 us.
  mutable std::map<std::pair<std::string, std::uint64_t>, std::vector<SourceFrame>> sources_;
  mutable std::map<std::string, std::string> problems_;
};

}  // namespace gilsan::watchdog
