// What every parser fuzzed here promises for any input: it returns, or it throws its own error whose
// message is one line naming the input ("SOURCE:..."). Anything else (another exception type, a message
// on two lines or without the source, a crash, a hang) is a bug the fuzzer stops on.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace gilsan::fuzz {

// Aborts, so that libFuzzer keeps the input, when `error` is not a one-line message naming `source`.
inline void require_one_line_naming(const std::exception& error, std::string_view source) {
  const std::string_view message = error.what();
  const bool names_source = message.starts_with(source);
  const bool one_line = message.find_first_of("\n\r") == std::string_view::npos && !message.empty();
  if (names_source && one_line) return;
  std::fprintf(stderr, "fuzz rule broken: the error %s: '%.*s'\n",
               names_source ? "spans several lines" : "does not start with the input's name",
               static_cast<int>(message.size()), message.data());
  std::abort();
}

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace gilsan::fuzz
