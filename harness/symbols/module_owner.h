// Whose code a loaded module is, by its path: the driver's (libcuda, or gilsan's simulated and
// forwarding drivers) or the interpreter's (libpython, or an executable with the interpreter linked
// in). The watchdog marks a lock those asked for as theirs; the sanitizer leaves their locks out of
// its model (docs/native-locks.md).
#pragma once

#include <string>
#include <string_view>

namespace gilsan::symbols {

// "the driver" or "the interpreter" when `module` (a path) is one of theirs; "" otherwise.
std::string owner_of_module(std::string_view module);

// An interpreter linked into its executable (Debian's and Ubuntu's python3.X): "python", "python3",
// "python3.12", "python3.13t"; not a library or module whose name merely begins with "python".
bool is_python_executable(std::string_view name);

}  // namespace gilsan::symbols
