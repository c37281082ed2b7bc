#include "harness/runner/github_annotations.h"

#include <cstdlib>

namespace gilsan {

bool github_actions_requested() {
  const char* value = std::getenv("GITHUB_ACTIONS");  // NOLINT(concurrency-mt-unsafe): read on the main thread
  return value != nullptr && std::string_view(value) == "true";
}

std::string escape_annotation_message(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_annotation_property(std::string_view text) {
  std::string out;
  for (const char c : escape_annotation_message(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

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
