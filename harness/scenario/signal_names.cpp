#include "harness/scenario/signal_names.h"

#include <string.h>

#include <csignal>

namespace gilsan {

std::string signal_name(int signal_number) {
  if (signal_number > 0 && signal_number < NSIG) {
    // sigabbrev_np (glibc 2.32+) gives "SEGV" without the prefix and is async-signal-safe to read.
    if (const char* abbreviation = sigabbrev_np(signal_number); abbreviation != nullptr)
      return std::string("SIG") + abbreviation;
  }
  return "SIG" + std::to_string(signal_number);
}

std::optional<int> signal_number(std::string_view name) {
  std::string upper;
  for (char c : name) upper += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  std::string_view bare = upper;
  if (bare.starts_with("SIG")) bare.remove_prefix(3);
  if (bare.empty()) return std::nullopt;
  for (int number = 1; number < NSIG; ++number) {
    const char* abbreviation = sigabbrev_np(number);
    if (abbreviation != nullptr && bare == abbreviation) return number;
  }
  return std::nullopt;
}

}  // namespace gilsan
