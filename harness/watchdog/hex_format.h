// Handles and addresses are shown the same way everywhere in reports: lower-case hex with "0x".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace gilsan::watchdog {

inline std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace gilsan::watchdog
