// Everything a pipe or file descriptor yields until end of file, for tests that read a child's output.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <string>

namespace gilsan {

inline std::string read_to_end(int fd) {
  std::string bytes;
  char buffer[4096];
  for (ssize_t count; (count = ::read(fd, buffer, sizeof buffer)) > 0;) bytes.append(buffer, static_cast<std::size_t>(count));
  return bytes;
}

}  // namespace gilsan
