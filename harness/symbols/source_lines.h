// SourceLines: file:line and inlined calls for code addresses of one ELF file, from its DWARF (or
// the separate debug file its build ID or .gnu_debuglink names, as gdb finds them), through elfutils'
// libdwfl. The symbol table says which function an address is in; only the line table and the
// inlining tree say where, and which inlined calls the optimizer folded into that function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gilsan::watchdog {

struct SourceFrame {
  std::string function;  // demangled linkage name, else the plain name; "" when DWARF has neither
  std::string file;      // as the compiler recorded it (absolute for our builds)
  int line = 0;          // 0: no line
  bool inlined = false;  // an inlined call: no frame of its own on the machine stack
};

class SourceLines {
 public:
  // Why no file can be opened at all ("" when libdw is usable): the build had no elfutils headers,
  // or this machine has no libdw.so.1. A report says it once instead of silently lacking lines.
  static std::string unavailable_reason();

  // nullptr when libdw is unusable, the file is not ELF, or neither it nor a debug file has DWARF.
  static std::unique_ptr<SourceLines> open(const std::string& path);

  ~SourceLines();
  SourceLines(const SourceLines&) = delete;
  SourceLines& operator=(const SourceLines&) = delete;

  // The code at `virtual_address` (the file's own address space, as ElfSymbols uses), innermost
  // first: each inlined call (inlined = true; its line is inside the inlined function), then the
  // function that holds the code, at the line of the outermost inlined call's site (or of the
  // address itself). Empty when DWARF does not cover the address.
  std::vector<SourceFrame> frames_at(std::uint64_t virtual_address) const;

 private:
  struct Session;
  explicit SourceLines(std::unique_ptr<Session> session);
  std::unique_ptr<Session> session_;
};

// "function at file:line" parts for a one-line frame text: " at path/file.cpp:12", or "".
std::string source_suffix(const SourceFrame& frame);

}  // namespace gilsan::watchdog
