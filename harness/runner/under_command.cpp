#include "harness/runner/under_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

#include "harness/text/errno_text.h"

namespace gilsan {

std::vector<std::string> split_command_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // an empty quoted word ('') is still a word
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::exchange(word, {}));
      in_word = false;
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', at + 1);
      if (end == std::string_view::npos) throw std::invalid_argument("unterminated ' quote");
      word.append(text.substr(at + 1, end - at - 1));
      at = end;
      in_word = true;
    } else if (c == '"') {
      in_word = true;
      for (++at;; ++at) {
        if (at >= text.size()) throw std::invalid_argument("unterminated \" quote");
        if (text[at] == '"') break;
        // Inside double quotes a backslash escapes only these, as in sh.
        if (text[at] == '\\' && at + 1 < text.size() && std::string_view("\"\\$`").find(text[at + 1]) != std::string_view::npos)
          ++at;
        word += text[at];
      }
    } else if (c == '\\') {
      if (at + 1 >= text.size()) throw std::invalid_argument("a backslash at the end");
      word += text[++at];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<std::string> executable_path(const std::string& program) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos)
    return ::access(program.c_str(), X_OK) == 0 ? std::optional<std::string>(program) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const auto colon = rest.find(':');
    const std::string folder(rest.substr(0, colon));
    std::string candidate = (folder.empty() ? "." : folder) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

std::vector<std::string> parse_under_command(std::string_view text) {
  std::vector<std::string> words;
  try {
    words = split_command_words(text);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument("--under '" + std::string(text) + "': " + error.what());
  }
  if (words.empty()) throw std::invalid_argument("--under needs a command, such as --under 'valgrind --tool=helgrind'");
  const std::optional<std::string> program = executable_path(words.front());
  if (!program) {
    const std::string why = words.front().find('/') != std::string::npos ? errno_text(errno) : "not found on PATH";
    throw std::invalid_argument("--under: " + words.front() + ": " + why);
  }
  words.front() = *program;
  return words;
}

}  // namespace gilsan
