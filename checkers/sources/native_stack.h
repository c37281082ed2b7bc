// Native stacks for the sanitizer's reports, in two steps so that the cheap one is the only one on
// an event's path: capture_native_stack keeps the calling thread's return addresses (backtrace(3),
// a few hundred nanoseconds, as "0x..." frames), and symbolize_native_stack names them when a
// report is made: the symbol (dladdr, else the ELF .symtab of the defining object, for functions
// of an executable that exports nothing), demangled, the object's base name, and where the object
// has DWARF, " at file:line" and a "[inlined] ..." frame before it per call inlined there.
// Not async-signal-safe: for event sources, never for signal handlers.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

// Loads the unwinder backtrace(3) uses (glibc dlopens libgcc_s on its first call) and libdw (for
// file:line), so that the first capture or report, which may come inside a driver call, does not
// take the loader's lock. Call it once when the source starts.
void prepare_native_stack_capture();

// Raw frames of the calling thread, innermost first, at most `depth`, without this function's own.
Stack capture_native_stack(std::size_t depth);

// Replaces each raw frame with "function+0x12 (object)" ("0x... (object)" when no table names it),
// " at file.cpp:12" added and "[inlined] callee (object) at file.h:3" frames before it from DWARF,
// and then drops the innermost frames that belong to the sanitizer itself: those whose text
// contains one of `own_frames` (e.g. "gilsan::checkers::", "(libcupti.so"). Frames that are not
// raw (a Python frame) are left as they are. At least one frame is kept.
void symbolize_native_stack(Stack& stack, const std::vector<std::string_view>& own_frames);

// The function at `address`, from the ELF .symtab of the object that maps it (loaded once per
// object and cached): "name+0x12", demangled, or "" when no symbol covers it. For names dladdr
// cannot give (dladdr reads only the dynamic symbol table).
std::string static_symbol_name(const void* address);

}  // namespace gilsan::checkers
