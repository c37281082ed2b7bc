#include "harness/runner/sanitizer_findings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gilsan {
namespace {

std::string value_of(const std::vector<std::pair<std::string, std::string>>& environment, const std::string& name) {
  for (const auto& [key, value] : environment)
    if (key == name) return value;
  return "";
}

TEST(SanitizerReportFolder, ReadsWhatTheChildWroteAndRemovesTheFolder) {
  std::filesystem::path folder;
  {
    const SanitizerReportFolder reports;
    const auto environment = reports.child_environment();
    EXPECT_EQ(value_of(environment, "GILSAN_SANITIZE"), "1");
    const std::filesystem::path json = value_of(environment, "GILSAN_REPORT");
    folder = json.parent_path();
    ASSERT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_TRUE(reports.read().checkers.empty());  // nothing written: no findings

    std::ofstream(json) << R"({"schema": "gilsan-sanitizer-report/1", "complete": true,
                               "reports": [{"checker": "lock-order-cycle"}, {"checker": "gil-held-blocking-call"}]})";
    std::ofstream(value_of(environment, "GILSAN_SANITIZER_TEXT")) << "gilsan: 2 reports\n";
    const SanitizerFindings findings = reports.read();
    EXPECT_EQ(findings.checkers, (std::vector<std::string>{"lock-order-cycle", "gil-held-blocking-call"}));
    EXPECT_EQ(findings.text, "gilsan: 2 reports\n");
    EXPECT_FALSE(findings.error);

    std::ofstream(json) << "{not json";
    EXPECT_TRUE(reports.read().error);
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(CheckersInReport, RejectsDocumentsWithoutReports) {
  EXPECT_THROW(checkers_in_report("[]"), std::runtime_error);
  EXPECT_THROW(checkers_in_report(R"({"schema": "x"})"), std::runtime_error);
  EXPECT_THROW(checkers_in_report(R"({"reports": [{"id": 1}]})"), std::runtime_error);
  EXPECT_TRUE(checkers_in_report(R"({"reports": []})").empty());
}

}  // namespace
}  // namespace gilsan
