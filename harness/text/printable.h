// User text quoted in a one-line error message: control characters (a newline in an environment
// variable, a carriage return from a CRLF file, an escape sequence) are written as \n, \r, \t or \xNN,
// so a message stays on one line and cannot drive the terminal. Bytes from 0x80 up are kept: names may
// be UTF-8. Header-only: the simulated driver, the runner and the checkers all quote input.
#pragma once

#include <string>
#include <string_view>

namespace gilsan {

inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

}  // namespace gilsan
