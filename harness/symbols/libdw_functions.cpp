#include "harness/symbols/libdw_functions.h"

#ifdef GILSAN_HAVE_LIBDW_HEADERS

#include <dlfcn.h>

#include <mutex>

namespace gilsan::watchdog {
namespace {

struct LoadedLibdw {
  LibdwFunctions functions;
  bool usable = false;
  std::string why_not;
};

template <typename Function>
bool resolve(void* library, const char* name, Function& function, std::string& why_not) {
  function = reinterpret_cast<Function>(::dlsym(library, name));
  if (function == nullptr && why_not.empty()) why_not = std::string("libdw.so.1 has no ") + name;
  return function != nullptr;
}

LoadedLibdw load() {
  LoadedLibdw loaded;
  // The library stays loaded: its functions are kept in a process-wide table.
  void* library = ::dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = ::dlerror();
    loaded.why_not = std::string("libdw.so.1 (elfutils) could not be loaded: ") + (error != nullptr ? error : "?");
    return loaded;
  }
  // Stops at the first missing function: it alone makes the table unusable, and is the one named.
  LibdwFunctions& f = loaded.functions;
  std::string& why = loaded.why_not;
  loaded.usable = resolve(library, "dwfl_begin", f.begin, why) && resolve(library, "dwfl_end", f.end, why) &&
                  resolve(library, "dwfl_report_offline", f.report_offline, why) &&
                  resolve(library, "dwfl_report_end", f.report_end, why) &&
                  resolve(library, "dwfl_build_id_find_elf", f.build_id_find_elf, why) &&
                  resolve(library, "dwfl_standard_find_debuginfo", f.standard_find_debuginfo, why) &&
                  resolve(library, "dwfl_offline_section_address", f.offline_section_address, why) &&
                  resolve(library, "dwfl_module_getelf", f.module_getelf, why) &&
                  resolve(library, "dwfl_module_getdwarf", f.module_getdwarf, why) &&
                  resolve(library, "dwfl_module_getsrc", f.module_getsrc, why) &&
                  resolve(library, "dwfl_lineinfo", f.lineinfo, why) &&
                  resolve(library, "dwfl_module_addrdie", f.module_addrdie, why) &&
                  resolve(library, "dwarf_getscopes", f.getscopes, why) &&
                  resolve(library, "dwarf_getscopes_die", f.getscopes_die, why) && resolve(library, "dwarf_tag", f.tag, why) &&
                  resolve(library, "dwarf_attr_integrate", f.attr_integrate, why) &&
                  resolve(library, "dwarf_formstring", f.formstring, why) &&
                  resolve(library, "dwarf_formudata", f.formudata, why) &&
                  resolve(library, "dwarf_getsrcfiles", f.getsrcfiles, why) &&
                  resolve(library, "dwarf_filesrc", f.filesrc, why);
  return loaded;
}

}  // namespace

const LibdwFunctions* libdw_functions(std::string* why_not) {
  static std::once_flag once;
  static LoadedLibdw* loaded = nullptr;  // never freed: reports may come while the process exits
  std::call_once(once, [] { loaded = new LoadedLibdw(load()); });
  if (why_not != nullptr) *why_not = loaded->why_not;
  return loaded->usable ? &loaded->functions : nullptr;
}

}  // namespace gilsan::watchdog

#endif  // GILSAN_HAVE_LIBDW_HEADERS
