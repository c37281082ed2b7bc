#include "harness/symbols/source_lines.h"

#include "harness/symbols/elf_symbols.h"
#include "harness/symbols/libdw_functions.h"

#ifdef GILSAN_HAVE_LIBDW_HEADERS
#include <dwarf.h>

#include <cstdlib>
#include <optional>
#endif

namespace gilsan::watchdog {

std::string source_suffix(const SourceFrame& frame) {
  if (frame.file.empty()) return "";
  return " at " + frame.file + (frame.line > 0 ? ":" + std::to_string(frame.line) : "");
}

#ifdef GILSAN_HAVE_LIBDW_HEADERS

struct SourceLines::Session {
  const LibdwFunctions* dw = nullptr;
  // libdwfl keeps pointers to both for the session's life.
  Dwfl_Callbacks callbacks{};
  char* debuginfo_path = nullptr;  // nullptr: the standard search (next to the file, /usr/lib/debug)
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  Dwarf_Addr bias = 0;  // libdwfl's addresses less the file's own

  ~Session() {
    if (dwfl != nullptr) dw->end(dwfl);
  }
};

namespace {

// The name a report should show: the linkage name says namespace, class and parameters; DW_AT_name
// alone is the bare identifier ("push_back").
std::string function_name(const LibdwFunctions& dw, Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dw.attr_integrate(die, name, &attribute) != nullptr) {
      if (const char* text = dw.formstring(&attribute)) return demangle(text);
    }
  }
  if (dw.attr_integrate(die, DW_AT_name, &attribute) != nullptr) {
    if (const char* text = dw.formstring(&attribute)) return text;
  }
  return "";
}

std::optional<Dwarf_Word> unsigned_attribute(const LibdwFunctions& dw, Dwarf_Die* die, int name) {
  Dwarf_Attribute attribute;
  Dwarf_Word value = 0;
  if (dw.attr_integrate(die, name, &attribute) == nullptr || dw.formudata(&attribute, &value) != 0) return std::nullopt;
  return value;
}

// Where an inlined call was made, in its caller: the caller's own location.
SourceFrame call_site(const LibdwFunctions& dw, Dwarf_Die* inlined_call, Dwarf_Files* files) {
  SourceFrame site;
  if (auto index = unsigned_attribute(dw, inlined_call, DW_AT_call_file); index && files != nullptr) {
    if (const char* name = dw.filesrc(files, *index, nullptr, nullptr)) site.file = name;
  }
  if (auto line = unsigned_attribute(dw, inlined_call, DW_AT_call_line)) site.line = static_cast<int>(*line);
  return site;
}

bool is_function(const LibdwFunctions& dw, Dwarf_Die* die) {
  const int tag = dw.tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

// The first function among `count` scopes from `first` on (lexical blocks between them say nothing a
// report needs); frees the array.
std::optional<Dwarf_Die> first_function(const LibdwFunctions& dw, Dwarf_Die* scopes, int count, int first) {
  std::optional<Dwarf_Die> found;
  for (int i = first; i < count && !found; ++i) {
    if (is_function(dw, &scopes[i])) found = scopes[i];
  }
  std::free(scopes);
  return found;
}

std::optional<Dwarf_Die> innermost_function(const LibdwFunctions& dw, Dwarf_Die* unit, Dwarf_Addr address) {
  Dwarf_Die* scopes = nullptr;
  const int count = dw.getscopes(unit, address, &scopes);
  return first_function(dw, scopes, count, 0);
}

// The function an inlined call was made from. dwarf_getscopes lists, past an inlined call, the
// scopes around the inlined function's own definition; the caller is found from the call's DIE.
std::optional<Dwarf_Die> caller_of(const LibdwFunctions& dw, Dwarf_Die* inlined_call) {
  Dwarf_Die* scopes = nullptr;
  const int count = dw.getscopes_die(inlined_call, &scopes);
  return first_function(dw, scopes, count, 1);  // [0] is the call itself
}

}  // namespace

std::string SourceLines::unavailable_reason() {
  std::string why_not;
  libdw_functions(&why_not);
  return why_not;
}

std::unique_ptr<SourceLines> SourceLines::open(const std::string& path) {
  const LibdwFunctions* dw = libdw_functions();
  if (dw == nullptr) return nullptr;
  auto session = std::make_unique<Session>();
  session->dw = dw;
  session->callbacks.find_elf = dw->build_id_find_elf;
  session->callbacks.find_debuginfo = dw->standard_find_debuginfo;
  session->callbacks.section_address = dw->offline_section_address;
  session->callbacks.debuginfo_path = &session->debuginfo_path;
  session->dwfl = dw->begin(&session->callbacks);
  if (session->dwfl == nullptr) return nullptr;
  session->module = dw->report_offline(session->dwfl, path.c_str(), path.c_str(), -1);
  if (dw->report_end(session->dwfl, nullptr, nullptr) != 0 || session->module == nullptr) return nullptr;
  GElf_Addr bias = 0;
  if (dw->module_getelf(session->module, &bias) == nullptr) return nullptr;
  session->bias = bias;
  Dwarf_Addr dwarf_bias = 0;
  if (dw->module_getdwarf(session->module, &dwarf_bias) == nullptr) return nullptr;
  return std::unique_ptr<SourceLines>(new SourceLines(std::move(session)));
}

std::vector<SourceFrame> SourceLines::frames_at(std::uint64_t virtual_address) const {
  const LibdwFunctions& dw = *session_->dw;
  const Dwarf_Addr address = virtual_address + session_->bias;
  SourceFrame location;  // of the innermost function: the line table's row for the address
  if (Dwfl_Line* line = dw.module_getsrc(session_->module, address)) {
    int number = 0;
    if (const char* file = dw.lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      location.file = file;
      location.line = number;
    }
  }
  std::vector<SourceFrame> frames;
  Dwarf_Addr cu_bias = 0;
  Dwarf_Die* unit = dw.module_addrdie(session_->module, address, &cu_bias);
  Dwarf_Files* files = nullptr;
  std::size_t file_count = 0;
  if (unit != nullptr && dw.getsrcfiles(unit, &files, &file_count) != 0) files = nullptr;
  std::optional<Dwarf_Die> function =
      unit != nullptr ? innermost_function(dw, unit, address - cu_bias) : std::nullopt;
  while (function) {
    location.function = function_name(dw, &*function);
    location.inlined = dw.tag(&*function) == DW_TAG_inlined_subroutine;
    frames.push_back(location);
    if (!location.inlined) break;
    location = call_site(dw, &*function, files);
    function = caller_of(dw, &*function);
  }
  // No function scope (or a chain that ends in an inlined call): the holder still has a line.
  if ((frames.empty() || frames.back().inlined) && !location.file.empty()) frames.push_back(location);
  return frames;
}

#else  // !GILSAN_HAVE_LIBDW_HEADERS

struct SourceLines::Session {};

std::string SourceLines::unavailable_reason() {
  return "gilsan was built without elfutils' headers (libdw-dev), so reports have no file:line";
}

std::unique_ptr<SourceLines> SourceLines::open(const std::string&) { return nullptr; }

std::vector<SourceFrame> SourceLines::frames_at(std::uint64_t) const { return {}; }

#endif  // GILSAN_HAVE_LIBDW_HEADERS

SourceLines::SourceLines(std::unique_ptr<Session> session) : session_(std::move(session)) {}
SourceLines::~SourceLines() = default;

}  // namespace gilsan::watchdog
