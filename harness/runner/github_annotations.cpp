#include "harness/runner/github_annotations.h"

#include <cstdlib>

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
    // Line 1: the header that states the expectation starts the file.
    out += "::error file=" + escape_annotation_property(result.scenario) + ",line=1,title=" +
           escape_annotation_property(title) + "::" + escape_annotation_message(name + ": " + what) + "\n";
  }
  return out;
}

}  // namespace gilsan
