#include "harness/reports/github_annotations.h"

#include <cstdlib>

#include "harness/reports/failure_excerpt.h"
#include "harness/reports/reported_line.h"

namespace gilsan {

bool github_actions_requested() {
  const char* value = std::getenv("GITHUB_ACTIONS");  // NOLINT(concurrency-mt-unsafe): read on the main thread
  return value != nullptr && std::string_view(value) == "true";
}

namespace {

// GitHub's workflow-command escaping: a message escapes %, CR and LF; a property also : and ,.
std::string escape_annotation(std::string_view text, bool property) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_annotation_message(std::string_view text) { return escape_annotation(text, false); }

std::string escape_annotation_property(std::string_view text) { return escape_annotation(text, true); }

std::string github_annotations(const std::vector<ScenarioResult>& results) {
  std::string out;
  for (const ScenarioResult& result : results) {
    const ResultStatus status = result.status();
    if (status != ResultStatus::Failed && status != ResultStatus::HarnessError) continue;
    const std::string what = "expected " + result.header.expect.to_string() + ", got " + result.outcome.to_string();
    const std::string title = status == ResultStatus::HarnessError ? "gilsan: harness error" : "gilsan: " + what;
    const std::string name = result.scenario + (result.implementation ? " [" + *result.implementation + "]" : "");
    // The line the report names (the blocking call, the raise), else the header's first line, which
    // states the expectation; the message carries the excerpt, the whole cycle with it.
    const int line = reported_line(result).value_or(1);
    std::string message = name + ": " + what;
    if (const std::string excerpt = failure_excerpt(result); !excerpt.empty()) message += "\n" + excerpt;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    out += "::error file=" + escape_annotation_property(result.scenario) + ",line=" + std::to_string(line) +
           ",title=" + escape_annotation_property(title) + "::" + escape_annotation_message(message) + "\n";
  }
  return out;
}

}  // namespace gilsan
