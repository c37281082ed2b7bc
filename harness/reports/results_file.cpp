#include "harness/reports/results_file.h"

#include <cerrno>
#include <fstream>
#include <system_error>

namespace gilsan {

void write_results_file(const std::string& path, const std::string& contents) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream << contents;
  stream.close();
  if (!stream) throw std::system_error(errno, std::generic_category(), "cannot write " + path);
}

}  // namespace gilsan
