#include "harness/reports/reported_line.h"

#include <charconv>
#include <string>

namespace gilsan {
namespace {

std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The watchdog's text: the block of the thread that the cycle's first step names ("1. thread 123 ..."),
// under "threads:"; the whole threads section when the cycle names none.
std::string_view first_cycle_thread_block(std::string_view text) {
  const auto threads = text.find("\nthreads:\n");
  if (threads == std::string_view::npos) return {};
  const std::string_view section = text.substr(threads);
  const auto step = text.find("    1. thread ");
  if (step == std::string_view::npos || step > threads) return section;
  const std::string_view rest = text.substr(step + 14);
  const std::string tid(rest.substr(0, rest.find(' ')));
  const auto block = section.find("\n  thread " + tid + " ");
  if (block == std::string_view::npos) return section;
  const std::string_view from = section.substr(block + 1);
  const auto next = from.find("\n  thread ", 1);
  return next == std::string_view::npos ? from : from.substr(0, next);
}

}  // namespace

std::optional<int> line_named(std::string_view text, std::string_view scenario, bool last) {
  const std::string_view base = file_name(scenario);
  std::optional<int> found;
  if (base.empty()) return found;
  for (std::size_t at = text.find(base); at != std::string_view::npos; at = text.find(base, at + 1)) {
    // Only the file itself: "x.py" must not match inside "other_x.py".
    if (at > 0 && text[at - 1] != '/' && text[at - 1] != '"' && text[at - 1] != ' ') continue;
    std::string_view rest = text.substr(at + base.size());
    if (rest.starts_with("\", line ")) {
      rest.remove_prefix(8);
    } else if (rest.starts_with(":")) {
      rest.remove_prefix(1);
    } else {
      continue;
    }
    int line = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), line);
    if (error != std::errc() || end == rest.data() || line <= 0) continue;
    found = line;
    if (!last) return found;
  }
  return found;
}

std::optional<int> reported_line(const ScenarioResult& result) {
  const std::string_view scenario = result.scenario;
  if (result.watchdog) {
    if (std::optional<int> line = line_named(first_cycle_thread_block(result.watchdog->text), scenario)) return line;
  }
  if (result.run.report.exception) {
    if (std::optional<int> line = line_named(result.run.report.exception->traceback, scenario, true)) return line;
  }
  if (result.sanitizer && !result.sanitizer->checkers.empty()) {
    // A report's own stacks: its header lines name the host function's definition, not a call.
    const std::string& text = result.sanitizer->text;
    const auto stacks = text.find("\n  stack");
    if (stacks != std::string::npos) {
      if (std::optional<int> line = line_named(std::string_view(text).substr(stacks), scenario)) return line;
    }
  }
  return line_named(result.run.stderr_text, scenario, true);
}

}  // namespace gilsan
