// The parent's side of a sanitized scenario run: a private folder for the child's report files,
// passed through the environment, read back after the run and removed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gilsan {

// What the child's sanitizer reported.
struct SanitizerFindings {
  std::vector<std::string> checkers;  // the checker of every unsuppressed report, in report order
  std::string text;                   // the text report (headlines, edges, stacks, summary)
  std::string json;                   // the gilsan-sanitizer-report/1 document, as written
  std::optional<std::string> error;   // the JSON report exists but cannot be read
};

class SanitizerReportFolder {
 public:
  // Makes the folder under $TMPDIR (else /tmp). Throws std::system_error when it cannot.
  SanitizerReportFolder();
  ~SanitizerReportFolder();  // removes the folder and what the child left in it
  SanitizerReportFolder(const SanitizerReportFolder&) = delete;
  SanitizerReportFolder& operator=(const SanitizerReportFolder&) = delete;

  // The variables that turn the child's sanitizer on and point it at the folder.
  std::vector<std::pair<std::string, std::string>> child_environment() const;
  // After the child has exited. A child that died before writing anything has no findings.
  SanitizerFindings read() const;

 private:
  std::string folder_;
};

// The checkers named in a gilsan-sanitizer-report/1 document. Throws std::runtime_error.
std::vector<std::string> checkers_in_report(const std::string& json_text);

}  // namespace gilsan
