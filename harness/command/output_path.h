// Output files proven writable before anything runs: a suite that ran for an hour must not end with
// "cannot write the JUnit file". Nothing is created by the check: a run that stops early leaves no
// half-written or empty output behind (a new file is created and removed at once, to be sure).
#pragma once

#include <optional>
#include <string>

namespace gilsan {

// Why `path` cannot be written (created or replaced) by this process, or nullopt when it can.
std::optional<std::string> why_unwritable(const std::string& path);

}  // namespace gilsan
