#include "harness/symbols/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "harness/text/errno_text.h"

namespace gilsan::watchdog {
namespace {

class File {
 public:
  explicit File(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw ElfError(path + ": cannot open: " + errno_text(errno));
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  void read(std::uint64_t offset, void* out, std::size_t size) const {
    auto* bytes = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < size) {
      ssize_t n = ::pread(fd_, bytes + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw ElfError(path_ + ": truncated ELF file (wanted " + std::to_string(size) + " bytes at offset " +
                       std::to_string(offset) + ")");
      }
      done += static_cast<std::size_t>(n);
    }
  }

  template <typename T>
  std::vector<T> read_array(std::uint64_t offset, std::size_t count) const {
    if (count > (std::size_t{1} << 30) / sizeof(T)) {
      throw ElfError(path_ + ": implausible table of " + std::to_string(count) + " entries at offset " +
                     std::to_string(offset));
    }
    std::vector<T> items(count);
    if (count > 0) read(offset, items.data(), count * sizeof(T));
    return items;
  }

 private:
  std::string path_;
  int fd_;
};

}  // namespace

ElfSymbols ElfSymbols::load(const std::string& path) {
  File file(path);
  Elf64_Ehdr header {};
  file.read(0, &header, sizeof(header));
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) throw ElfError(path + ": not an ELF file");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    throw ElfError(path + ": only 64-bit little-endian ELF files are supported");
  }
  if (header.e_phentsize != sizeof(Elf64_Phdr) || (header.e_shnum > 0 && header.e_shentsize != sizeof(Elf64_Shdr))) {
    throw ElfError(path + ": unexpected program or section header size");
  }

  ElfSymbols result;
  for (const Elf64_Phdr& segment : file.read_array<Elf64_Phdr>(header.e_phoff, header.e_phnum)) {
    if (segment.p_type == PT_LOAD) {
      result.segments_.push_back(Segment{segment.p_offset, segment.p_filesz, segment.p_vaddr});
    }
  }

  auto sections = file.read_array<Elf64_Shdr>(header.e_shoff, header.e_shnum);
  const Elf64_Shdr* table = nullptr;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type == SHT_SYMTAB) table = &section;
  }
  result.table_ = ".symtab";
  if (table == nullptr) {
    for (const Elf64_Shdr& section : sections) {
      if (section.sh_type == SHT_DYNSYM) table = &section;
    }
    result.table_ = ".dynsym";
  }
  if (table == nullptr) {
    result.table_.clear();
    return result;
  }
  if (table->sh_entsize != sizeof(Elf64_Sym) || table->sh_link >= sections.size()) {
    throw ElfError(path + ": malformed " + result.table_ + " section header");
  }
  const Elf64_Shdr& strings_section = sections[table->sh_link];
  auto strings = file.read_array<char>(strings_section.sh_offset, strings_section.sh_size);
  auto symbols = file.read_array<Elf64_Sym>(table->sh_offset, table->sh_size / sizeof(Elf64_Sym));
  for (const Elf64_Sym& symbol : symbols) {
    unsigned type = ELF64_ST_TYPE(symbol.st_info);
    const bool function = type == STT_FUNC || type == STT_GNU_IFUNC;
    if ((!function && type != STT_OBJECT) || symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0 ||
        symbol.st_size == 0 || symbol.st_name >= strings.size()) {
      continue;
    }
    const char* name = strings.data() + symbol.st_name;
    std::size_t length = strnlen(name, strings.size() - symbol.st_name);
    (function ? result.symbols_ : result.objects_).push_back(Symbol{symbol.st_value, symbol.st_size, std::string(name, length)});
  }
  // Sorted by address; among aliases of one address keep the first name the table gave.
  for (std::vector<Symbol>* table : {&result.symbols_, &result.objects_}) {
    std::stable_sort(table->begin(), table->end(), [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  }
  return result;
}

std::optional<std::uint64_t> ElfSymbols::virtual_address(std::uint64_t file_offset) const {
  for (const Segment& segment : segments_) {
    if (file_offset >= segment.file_offset && file_offset < segment.file_offset + segment.file_size) {
      return file_offset - segment.file_offset + segment.virtual_address;
    }
  }
  return std::nullopt;
}

namespace {

const ElfSymbols::Symbol* find_in(const std::vector<ElfSymbols::Symbol>& table, std::uint64_t virtual_address) {
  auto after = std::upper_bound(table.begin(), table.end(), virtual_address,
                                [](std::uint64_t address, const ElfSymbols::Symbol& symbol) { return address < symbol.address; });
  // Nested or overlapping symbols are rare; look back over a few in case the nearest one is small.
  for (int looked = 0; after != table.begin() && looked < 8; ++looked) {
    --after;
    if (virtual_address < after->address + after->size) return &*after;
  }
  return nullptr;
}

}  // namespace

const ElfSymbols::Symbol* ElfSymbols::find(std::uint64_t virtual_address) const { return find_in(symbols_, virtual_address); }

const ElfSymbols::Symbol* ElfSymbols::find_object(std::uint64_t virtual_address) const {
  return find_in(objects_, virtual_address);
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : name;
}

}  // namespace gilsan::watchdog
