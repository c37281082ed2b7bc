#include "checkers/core/suppressions.h"
#include "harness/text/printable.h"

#include <fstream>
#include <sstream>

namespace gilsan::checkers {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

[[noreturn]] void fail(std::string_view file, int line, const std::string& message) {
  throw SuppressionError(printable(std::string(file) + ":" + std::to_string(line) + ": " + message));
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice, no recursion.
  std::size_t p = 0, t = 0;
  std::size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      const bool quoted = pattern[p] == '\\' && p + 1 < pattern.size();
      const char want = quoted ? pattern[p + 1] : pattern[p];
      if ((!quoted && want == '?') || want == text[t]) {
        p += quoted ? 2 : 1;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string> suppression_candidates(const Report& report) {
  std::vector<std::string> candidates;
  auto add = [&](const std::string& text) {
    if (!text.empty()) candidates.push_back(text);
  };
  auto add_host_function = [&](const std::optional<HostFunction>& host_function) {
    if (!host_function) return;
    add(host_function->implementation);
    add(host_function->callable);
  };
  auto add_thread = [&](const ThreadInfo& thread) { add_host_function(thread.host_function); };
  auto add_stack = [&](const Stack& stack) {
    for (const std::string& frame : stack) add(frame);
  };
  for (const PseudoLock& lock : report.cycle) add(lock.name);
  for (const CycleEdge& edge : report.edges) {
    add_thread(edge.evidence.thread);
    if (edge.evidence.call) add(edge.evidence.call->entry_point);
    add_stack(edge.evidence.stack);
  }
  if (report.thread) add_thread(*report.thread);
  if (report.call) add(report.call->entry_point);
  add_host_function(report.host_function);
  add_stack(report.stack);
  return candidates;
}

Suppressions Suppressions::parse(std::string_view text, std::string_view file_name) {
  Suppressions suppressions;
  int line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    ++line_number;
    start = end + 1;
    if (line.empty() || line.front() == '#') continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      fail(file_name, line_number, "expected CHECKER:PATTERN, got '" + std::string(line) + "'");
    }
    const std::string_view name = trim(line.substr(0, colon));
    const std::string_view pattern = trim(line.substr(colon + 1));
    const auto checker = checker_named(name);
    if (!checker) {
      fail(file_name, line_number,
           "unknown checker '" + std::string(name) + "' (known: " + all_checker_names() + ")");
    }
    if (pattern.empty())
      fail(file_name, line_number, "empty pattern after '" + std::string(name) + ":'");
    suppressions.rules_.push_back(
        Rule{*checker, std::string(pattern), std::string(file_name), line_number, 0});
  }
  return suppressions;
}

Suppressions Suppressions::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw SuppressionError(printable(path) + ": cannot open the suppression file");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw SuppressionError(printable(path) + ": cannot read the suppression file");
  return parse(text.str(), path);
}

const Suppressions::Rule* Suppressions::match(const Report& report) {
  std::vector<std::string> candidates;
  bool have_candidates = false;
  for (Rule& rule : rules_) {
    if (rule.checker != report.checker) continue;
    if (!have_candidates) {
      candidates = suppression_candidates(report);
      have_candidates = true;
    }
    for (const std::string& candidate : candidates) {
      if (glob_match(rule.pattern, candidate)) {
        ++rule.uses;
        return &rule;
      }
    }
  }
  return nullptr;
}

std::vector<UnusedSuppression> Suppressions::unused() const {
  std::vector<UnusedSuppression> unused;
  for (const Rule& rule : rules_) {
    if (rule.uses == 0) {
      unused.push_back({rule.file, rule.line, std::string(to_string(rule.checker)), rule.pattern});
    }
  }
  return unused;
}

}  // namespace gilsan::checkers
