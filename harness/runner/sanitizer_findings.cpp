#include "harness/runner/sanitizer_findings.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "harness/runner/run_folders.h"
#include "harness/scenario/child_protocol.h"

namespace gilsan {
namespace {

constexpr const char* kJsonName = "sanitizer.json";
constexpr const char* kTextName = "sanitizer.txt";

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

SanitizerReportFolder::SanitizerReportFolder() {
  const char* tmpdir = std::getenv("TMPDIR");
  folder_ = make_run_folder(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp", "sanitizer");
}

SanitizerReportFolder::~SanitizerReportFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::vector<std::pair<std::string, std::string>> SanitizerReportFolder::child_environment() const {
  return {{kSanitizeVariable, "1"},
          {kSanitizerReportVariable, folder_ + "/" + kJsonName},
          {kSanitizerTextVariable, folder_ + "/" + kTextName}};
}

SanitizerFindings SanitizerReportFolder::read() const {
  SanitizerFindings findings;
  findings.text = read_file(std::filesystem::path(folder_) / kTextName).value_or("");
  // The core writes the JSON only once there is a report (or at finish), through a rename, so a
  // file that is there is whole.
  if (std::optional<std::string> json = read_file(std::filesystem::path(folder_) / kJsonName)) {
    findings.json = std::move(*json);
    try {
      findings.checkers = checkers_in_report(findings.json);
    } catch (const std::exception& error) {
      findings.error = std::string("the sanitizer's JSON report: ") + error.what();
    }
  }
  return findings;
}

std::vector<std::string> checkers_in_report(const std::string& json_text) {
  const nlohmann::json document = nlohmann::json::parse(json_text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) throw std::runtime_error("not a JSON object");
  const auto reports = document.find("reports");
  if (reports == document.end() || !reports->is_array()) throw std::runtime_error("no 'reports' array");
  std::vector<std::string> checkers;
  for (const nlohmann::json& report : *reports) {
    const auto checker = report.find("checker");
    if (!report.is_object() || checker == report.end() || !checker->is_string())
      throw std::runtime_error("a report without a 'checker' string");
    checkers.push_back(checker->get<std::string>());
  }
  return checkers;
}

}  // namespace gilsan
