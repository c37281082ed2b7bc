// Writing a results file (JUnit, SARIF, JSON, Markdown) whole.
#pragma once

#include <string>

namespace gilsan {

// Throws std::system_error naming `path` when it cannot be written.
void write_results_file(const std::string& path, const std::string& contents);

}  // namespace gilsan
