// The text of an errno value, safe from any thread: std::strerror shares one buffer between threads
// (glibc documents it MT-Unsafe), and gilsan reports errors from its watchdog, supervisor and sanitizer
// threads at once.
#pragma once

#include <string.h>

#include <string>

namespace gilsan {

inline std::string errno_text(int error) {
  char buffer[256];
  // glibc's GNU strerror_r (C++ compilers define _GNU_SOURCE): it returns the message, which is in
  // `buffer` or a static string.
  return ::strerror_r(error, buffer, sizeof buffer);
}

}  // namespace gilsan
