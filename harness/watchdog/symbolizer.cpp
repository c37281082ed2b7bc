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

NativeFrame Symbolizer::symbolize(std::uint64_t address, bool return_address) const {
  NativeFrame frame;
  frame.address = address;
  std::uint64_t lookup = return_address && address > 0 ? address - 1 : address;
  auto after = std::upper_bound(mappings_.begin(), mappings_.end(), lookup,
                                [](std::uint64_t value, const MemoryMapping& m) { return value < m.start; });
  if (after == mappings_.begin()) return frame;
  const MemoryMapping& mapping = *std::prev(after);
  if (lookup >= mapping.end) return frame;
  frame.module = mapping.path;
  std::uint64_t file_offset = lookup - mapping.start + mapping.file_offset;
  frame.module_offset = file_offset;
  if (mapping.path.empty() || mapping.path[0] != '/') return frame;
  const ElfSymbols* symbols = symbols_for(mapping);
  if (symbols == nullptr) return frame;
  auto virtual_address = symbols->virtual_address(file_offset);
  if (!virtual_address) return frame;
  frame.module_offset = *virtual_address + (lookup == address ? 0 : 1);
  if (const ElfSymbols::Symbol* symbol = symbols->find(*virtual_address)) {
    frame.symbol = demangle(symbol->name);
    frame.symbol_offset = *virtual_address - symbol->address + (lookup == address ? 0 : 1);
  }
  return frame;
}

std::vector<NativeFrame> Symbolizer::symbolize_stack(const std::vector<std::uint64_t>& frames) const {
  std::vector<NativeFrame> symbolized;
  symbolized.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) symbolized.push_back(symbolize(frames[i], i > 0));
  return symbolized;
}

std::vector<std::string> Symbolizer::problems_in(const std::set<std::string>& modules) const {
  std::vector<std::string> list;
  for (const auto& [path, problem] : problems_) {
    if (modules.contains(path)) list.push_back(problem);
  }
  return list;
}

}  // namespace gilsan::watchdog
