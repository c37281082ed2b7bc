// LibdwFunctions: the few elfutils (libdw/libdwfl) functions SourceLines uses, resolved with dlopen
// rather than linked. The sanitizer that uses them is also injected into programs gilsan did not
// build (libgilsan_inject.so): a link-time libdw.so.1 would make it fail to load on a machine without
// elfutils, where names without file:line are still worth having. Only the headers (libdw-dev) are
// needed to build; without them GILSAN_HAVE_LIBDW_HEADERS is undefined and nothing here exists.
#pragma once

#ifdef GILSAN_HAVE_LIBDW_HEADERS

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <string>

namespace gilsan::watchdog {

struct LibdwFunctions {
  decltype(&::dwfl_begin) begin = nullptr;
  decltype(&::dwfl_end) end = nullptr;
  decltype(&::dwfl_report_offline) report_offline = nullptr;
  decltype(&::dwfl_report_end) report_end = nullptr;
  decltype(&::dwfl_build_id_find_elf) build_id_find_elf = nullptr;
  decltype(&::dwfl_standard_find_debuginfo) standard_find_debuginfo = nullptr;
  decltype(&::dwfl_offline_section_address) offline_section_address = nullptr;
  decltype(&::dwfl_module_getelf) module_getelf = nullptr;
  decltype(&::dwfl_module_getdwarf) module_getdwarf = nullptr;
  decltype(&::dwfl_module_getsrc) module_getsrc = nullptr;
  decltype(&::dwfl_lineinfo) lineinfo = nullptr;
  decltype(&::dwfl_module_addrdie) module_addrdie = nullptr;
  decltype(&::dwarf_getscopes) getscopes = nullptr;
  decltype(&::dwarf_getscopes_die) getscopes_die = nullptr;
  decltype(&::dwarf_tag) tag = nullptr;
  decltype(&::dwarf_attr_integrate) attr_integrate = nullptr;
  decltype(&::dwarf_formstring) formstring = nullptr;
  decltype(&::dwarf_formudata) formudata = nullptr;
  decltype(&::dwarf_getsrcfiles) getsrcfiles = nullptr;
  decltype(&::dwarf_filesrc) filesrc = nullptr;
};

// The functions of the process's one libdw.so.1, loaded on first call and kept for the process's
// life; nullptr when it cannot be loaded or lacks one of them, with `why_not` saying which.
const LibdwFunctions* libdw_functions(std::string* why_not = nullptr);

}  // namespace gilsan::watchdog

#endif  // GILSAN_HAVE_LIBDW_HEADERS
