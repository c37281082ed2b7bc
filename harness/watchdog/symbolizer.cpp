#include "harness/watchdog/symbolizer.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace gilsan::watchdog {

std::optional<MemoryMapping> parse_maps_line(const std::string& line) {
  // "start-end perms offset dev inode   path" (path may contain spaces, or be absent).
  std::istringstream in(line);
  std::string range, device, inode;
  MemoryMapping mapping;
  if (!(in >> range >> mapping.permissions >> std::hex >> mapping.file_offset >> device >> inode)) {
    return std::nullopt;
  }
  auto dash = range.find('-');
  if (dash == std::string::npos) return std::nullopt;
  try {
    mapping.start = std::stoull(range.substr(0, dash), nullptr, 16);
    mapping.end = std::stoull(range.substr(dash + 1), nullptr, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string rest;
  std::getline(in, rest);
  auto first = rest.find_first_not_of(' ');
  mapping.path = first == std::string::npos ? "" : rest.substr(first);
  return mapping;
}

std::vector<MemoryMapping> read_memory_maps(pid_t pid) {
  std::vector<MemoryMapping> mappings;
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(in, line)) {
    if (auto mapping = parse_maps_line(line)) mappings.push_back(std::move(*mapping));
  }
  return mappings;
}

Symbolizer::Symbolizer(pid_t pid, std::vector<MemoryMapping> mappings) : pid_(pid) {
  update_mappings(std::move(mappings));
}

void Symbolizer::update_mappings(std::vector<MemoryMapping> mappings) {
  mappings_ = std::move(mappings);
  std::sort(mappings_.begin(), mappings_.end(),
            [](const MemoryMapping& a, const MemoryMapping& b) { return a.start < b.start; });
}

const ElfSymbols* Symbolizer::symbols_for(const MemoryMapping& mapping) const {
  auto found = cache_.find(mapping.path);
  if (found != cache_.end()) return found->second.get();
  std::unique_ptr<ElfSymbols> symbols;
  try {
    symbols = std::make_unique<ElfSymbols>(ElfSymbols::load(mapping.path));
  } catch (const ElfError& error) {
    // The file may be gone or replaced; the kernel still has it open for the process.
    std::ostringstream alias;
    alias << "/proc/" << pid_ << "/map_files/" << std::hex << mapping.start << "-" << mapping.end;
    try {
      symbols = std::make_unique<ElfSymbols>(ElfSymbols::load(alias.str()));
    } catch (const ElfError&) {
      problems_[mapping.path] = error.what();
    }
  }
  if (symbols && symbols->table().empty()) problems_[mapping.path] = mapping.path + ": no symbol table";
  return cache_.emplace(mapping.path, std::move(symbols)).first->second.get();
}

Symbolizer::Located Symbolizer::locate(std::uint64_t address, bool return_address) const {
  Located located;
  NativeFrame& frame = located.frame;
  frame.address = address;
  std::uint64_t lookup = return_address && address > 0 ? address - 1 : address;
  auto after = std::upper_bound(mappings_.begin(), mappings_.end(), lookup,
                                [](std::uint64_t value, const MemoryMapping& m) { return value < m.start; });
  if (after == mappings_.begin()) return located;
  const MemoryMapping& mapping = *std::prev(after);
  if (lookup >= mapping.end) return located;
  frame.module = mapping.path;
  std::uint64_t file_offset = lookup - mapping.start + mapping.file_offset;
  frame.module_offset = file_offset;
  if (mapping.path.empty() || mapping.path[0] != '/') return located;
  const ElfSymbols* symbols = symbols_for(mapping);
  if (symbols == nullptr) return located;
  auto virtual_address = symbols->virtual_address(file_offset);
  if (!virtual_address) return located;
  located.looked_up = *virtual_address;
  frame.module_offset = *virtual_address + (lookup == address ? 0 : 1);
  if (const ElfSymbols::Symbol* symbol = symbols->find(*virtual_address)) {
    frame.symbol = demangle(symbol->name);
    frame.symbol_offset = *virtual_address - symbol->address + (lookup == address ? 0 : 1);
  }
  return located;
}

NativeFrame Symbolizer::symbolize(std::uint64_t address, bool return_address) const {
  return locate(address, return_address).frame;
}

NativeFrame Symbolizer::name_data(std::uint64_t address) const {
  NativeFrame frame;
  frame.address = address;
  auto after = std::upper_bound(mappings_.begin(), mappings_.end(), address,
                                [](std::uint64_t value, const MemoryMapping& m) { return value < m.start; });
  if (after == mappings_.begin()) return frame;
  auto holder = std::prev(after);
  if (address >= holder->end) return frame;
  // .bss past the file's last page is anonymous memory right after the module's last mapping.
  if (holder->path.empty() && holder != mappings_.begin() && std::prev(holder)->end == holder->start &&
      !std::prev(holder)->path.empty()) {
    --holder;
  }
  frame.module = holder->path;
  if (holder->path.empty() || holder->path[0] != '/') return frame;
  const ElfSymbols* symbols = symbols_for(*holder);
  if (symbols == nullptr) return frame;
  // The module's load bias, from its first mapping: data may lie where no file offset maps to it.
  auto first = std::find_if(mappings_.begin(), mappings_.end(),
                            [&](const MemoryMapping& m) { return m.path == holder->path; });
  const std::optional<std::uint64_t> first_address = symbols->virtual_address(first->file_offset);
  if (!first_address || first->start < *first_address) return frame;
  const std::uint64_t virtual_address = address - (first->start - *first_address);
  frame.module_offset = virtual_address;
  if (const ElfSymbols::Symbol* symbol = symbols->find_object(virtual_address)) {
    frame.symbol = demangle(symbol->name);
    frame.symbol_offset = virtual_address - symbol->address;
  }
  return frame;
}

std::vector<NativeFrame> Symbolizer::symbolize_with_inlined(std::uint64_t address, bool return_address) const {
  Located located = locate(address, return_address);
  const SourceLines* lines = located.looked_up ? lines_for(located.frame.module) : nullptr;
  if (lines == nullptr) return {located.frame};
  auto [cached, inserted] = sources_.try_emplace({located.frame.module, *located.looked_up});
  if (inserted) cached->second = lines->frames_at(*located.looked_up);
  const std::vector<SourceFrame>& sources = cached->second;
  if (sources.empty()) return {located.frame};
  std::vector<NativeFrame> frames;
  frames.reserve(sources.size());
  for (std::size_t i = 0; i + 1 < sources.size(); ++i) {
    NativeFrame inlined = located.frame;
    inlined.symbol = sources[i].function;
    inlined.symbol_offset = 0;
    inlined.file = sources[i].file;
    inlined.line = sources[i].line;
    inlined.inlined = true;
    frames.push_back(std::move(inlined));
  }
  // The machine frame keeps the symbol table's name; DWARF's fills in only where the table has none.
  NativeFrame holder = std::move(located.frame);
  if (holder.symbol.empty()) holder.symbol = sources.back().function;
  holder.file = sources.back().file;
  holder.line = sources.back().line;
  frames.push_back(std::move(holder));
  return frames;
}

std::vector<NativeFrame> Symbolizer::symbolize_stack(const std::vector<std::uint64_t>& frames) const {
  std::vector<NativeFrame> symbolized;
  symbolized.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    for (NativeFrame& frame : symbolize_with_inlined(frames[i], i > 0)) symbolized.push_back(std::move(frame));
  }
  return symbolized;
}

std::vector<NativeFrame> Symbolizer::name_stack(const std::vector<std::uint64_t>& frames) const {
  std::vector<NativeFrame> named;
  named.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) named.push_back(symbolize(frames[i], i > 0));
  return named;
}

const SourceLines* Symbolizer::lines_for(const std::string& path) const { return lines_.get(path); }

void Symbolizer::open_source_lines_ahead() {
  std::set<std::string> paths;
  for (const MemoryMapping& mapping : read_memory_maps(pid_)) {
    if (mapping.path.starts_with('/') && mapping.permissions.find('x') != std::string::npos) paths.insert(mapping.path);
  }
  lines_.open_in_background({paths.begin(), paths.end()});
}

std::vector<std::string> Symbolizer::problems_in(const std::set<std::string>& modules) const {
  std::vector<std::string> list;
  for (const auto& [path, problem] : problems_) {
    if (modules.contains(path)) list.push_back(problem);
  }
  return list;
}

}  // namespace gilsan::watchdog
