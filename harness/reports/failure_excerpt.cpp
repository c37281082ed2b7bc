#include "harness/reports/failure_excerpt.h"

#include <vector>

#include "harness/text/lines.h"

namespace gilsan {
namespace {

using text::lines_of;

std::size_t indent_of(std::string_view line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

// The last `count` non-empty lines of `text`.
std::string last_lines(std::string_view text, std::size_t count) {
  std::vector<std::string_view> kept;
  for (std::string_view line : lines_of(text)) {
    if (!line.empty()) kept.push_back(line);
  }
  std::string excerpt;
  for (std::size_t i = kept.size() > count ? kept.size() - count : 0; i < kept.size(); ++i)
    excerpt += std::string(kept[i]) + "\n";
  return excerpt;
}

}  // namespace

std::string watchdog_excerpt(std::string_view report_text) {
  const std::vector<std::string_view> lines = lines_of(report_text);
  std::string excerpt;
  // The header ("gilsan: hang in process N: CLASS") and the summary.
  for (std::size_t i = 0; i < lines.size() && i < 2; ++i) excerpt += std::string(lines[i]) + "\n";
  // The report's sections at two spaces: the cycle (its steps deeper) and why; the rest (inferred facts,
  // evidence gaps) and the threads' stacks are the full report's.
  bool keeping = false;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (indent_of(line) == 0 && !line.empty()) break;  // "threads:": the stacks begin
    if (indent_of(line) == 2) keeping = line == "  cycle:" || line == "  why:" || line.starts_with("  (");
    if (keeping) excerpt += std::string(line) + "\n";
  }
  return excerpt;
}

std::string sanitizer_excerpt(std::string_view report_text) {
  std::string excerpt;
  int reports = 0;
  bool in_stack = false;  // a report's stacks are the full report's
  for (std::string_view line : lines_of(report_text)) {
    if (line.starts_with("gilsan: ")) {
      if (line.find(':', 8) == std::string_view::npos) continue;  // the closing "gilsan: 2 reports"
      ++reports;
      in_stack = false;
    } else if (indent_of(line) == 2) {
      in_stack = line.substr(2).starts_with("stack");
    }
    if (reports >= 1 && reports <= kMostSanitizerReports && !in_stack) excerpt += std::string(line) + "\n";
  }
  if (reports > kMostSanitizerReports)
    excerpt += "(" + std::to_string(reports - kMostSanitizerReports) + " more sanitizer reports in the full report)\n";
  return excerpt;
}

std::string failure_excerpt(const ScenarioResult& result) {
  if (result.kept_excerpt) return *result.kept_excerpt;
  if (result.watchdog) return watchdog_excerpt(result.watchdog->text);
  if (result.sanitizer && !result.sanitizer->checkers.empty()) return sanitizer_excerpt(result.sanitizer->text);
  return last_lines(result.run.stderr_text, 6);
}

void keep_only_the_excerpt(ScenarioResult& result) {
  // Only failures show an excerpt; a long line (output without newlines) is cut where no terminal shows more.
  constexpr std::size_t kLongestExcerpt = 4096;
  const ResultStatus status = result.status();
  std::string excerpt = status == ResultStatus::Failed || status == ResultStatus::HarnessError ? failure_excerpt(result) : "";
  if (excerpt.size() > kLongestExcerpt) excerpt = excerpt.substr(0, kLongestExcerpt) + "...\n";
  result.kept_excerpt = std::move(excerpt);
  std::string().swap(result.run.stdout_text);
  std::string().swap(result.run.stderr_text);
  result.watchdog.reset();
  result.sanitizer.reset();
}


}  // namespace gilsan
