// ElfSymbols: the function and data symbols of one ELF file (.symtab, else .dynsym) and its loadable segments,
// read with pread from the file itself. It names every frame (SourceLines adds file:line where there is
// DWARF): it needs nothing installed, and a lookup costs ~0.2 us against libdw's ~100 us scope walk,
// which the watchdog's per-sample spin checks cannot afford. 64-bit little-endian ELF only.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gilsan::watchdog {

class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ElfSymbols {
 public:
  struct Symbol {
    std::uint64_t address = 0;  // virtual address in the file's own address space
    std::uint64_t size = 0;
    std::string name;  // as stored (mangled)
  };

  // Throws ElfError naming the file and what is wrong with it.
  static ElfSymbols load(const std::string& path);

  // The file's virtual address for a byte at `file_offset`, through the PT_LOAD segment holding it.
  std::optional<std::uint64_t> virtual_address(std::uint64_t file_offset) const;
  // The function symbol whose [address, address + size) holds `virtual_address`, if any.
  const Symbol* find(std::uint64_t virtual_address) const;
  // The data symbol (a global or static variable) that holds `virtual_address`, if any.
  const Symbol* find_object(std::uint64_t virtual_address) const;

  const std::string& table() const { return table_; }  // ".symtab", ".dynsym" or "" (none)
  std::size_t size() const { return symbols_.size(); }

 private:
  struct Segment {
    std::uint64_t file_offset = 0;
    std::uint64_t file_size = 0;
    std::uint64_t virtual_address = 0;
  };

  std::vector<Segment> segments_;
  std::vector<Symbol> symbols_;  // functions, sorted by address
  std::vector<Symbol> objects_;  // data, sorted by address
  std::string table_;
};

// "_ZN6gilsan3fooEv" -> "gilsan::foo()"; other names unchanged.
std::string demangle(const std::string& name);

}  // namespace gilsan::watchdog
