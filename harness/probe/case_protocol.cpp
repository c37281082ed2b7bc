#include "harness/probe/case_protocol.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace gilsan::probe {

const std::string& CaseLine::value(std::size_t index) const {
  static const std::string empty;
  return index < values.size() ? values[index] : empty;
}

std::string CaseLine::text() const {
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : " ") + value;
  return out;
}

std::optional<CaseLine> parse_case_line(std::string_view line) {
  CaseLine parsed;
  std::size_t at = 0;
  while (at < line.size()) {
    std::size_t space = line.find(' ', at);
    if (space == std::string_view::npos) space = line.size();
    if (space > at) {
      std::string word(line.substr(at, space - at));
      if (parsed.key.empty()) {
        parsed.key = std::move(word);
      } else {
        parsed.values.push_back(std::move(word));
      }
    }
    at = space + 1;
  }
  if (parsed.key.empty()) return std::nullopt;
  return parsed;
}

std::optional<ResultCode> result_code_at(const CaseLine& line, std::size_t index) {
  const std::string& number = line.value(index);
  ResultCode result;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), result.code);
  if (number.empty() || error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  result.name = line.value(index + 1);
  return result;
}

void CaseReporter::line(std::string_view key, const std::vector<std::string>& values) const {
  std::string text(key);
  for (const auto& value : values) text += " " + value;
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';  // one fact, one line, whatever a message contains
  text += "\n";
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t written = ::write(fd_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // the parent is gone; nobody is left to tell
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

void CaseReporter::note(const std::string& text) const { line(key::kNote, {text}); }

void CaseReporter::result(std::string_view key, CUresult code, const std::string& code_name,
                          std::chrono::microseconds duration) const {
  line(key, {std::to_string(static_cast<int>(code)), code_name.empty() ? "?" : code_name,
             std::to_string(duration.count())});
}

}  // namespace gilsan::probe
