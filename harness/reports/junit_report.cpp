#include "harness/reports/junit_report.h"

#include <cstdio>
#include <filesystem>

#include "harness/reports/run_report.h"

namespace gilsan {
namespace {

std::string decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

// Groups scenarios by folder in CI views: "scenarios.callbacks" for scenarios/callbacks/x.py.
std::string class_name(const std::string& scenario) {
  std::string name = std::filesystem::path(scenario).parent_path().relative_path().string();
  for (char& c : name)
    if (c == '/') c = '.';
  return name.empty() ? "scenarios" : name;
}

// "args_and_kwargs.py[cupy]": a conformance scenario runs once per implementation, and a CI test viewer
// keys a case by classname and name, so the implementation is part of the name (as pytest names a
// parametrized test).
std::string case_name(const ScenarioResult& result) {
  std::string name = std::filesystem::path(result.scenario).filename().string();
  if (result.implementation) name += "[" + *result.implementation + "]";
  return name;
}

// Length of the valid UTF-8 sequence at the start of `text`, or 0 when it is not valid UTF-8.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t length = 0;
  if (lead < 0x80)
    length = 1;
  else if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  if (length == 0 || length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string xml_escaped(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      escaped += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8: the file declares UTF-8
      text.remove_prefix(1);
      continue;
    }
    const char c = text[0];
    text.remove_prefix(length);
    if (length > 1) {
      escaped.append(text.data() - length, length);
      continue;
    }
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      default:
        // Control characters other than tab, newline and carriage return are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        escaped += c;
    }
  }
  return escaped;
}

std::string junit_xml(const std::vector<ScenarioResult>& results, double total_seconds) {
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  for (const ScenarioResult& result : results) {
    switch (result.status()) {
      case ResultStatus::Failed: ++failures; break;
      case ResultStatus::HarnessError:
      case ResultStatus::Interrupted: ++errors; break;
      case ResultStatus::Skipped: ++skipped; break;
      case ResultStatus::Passed: break;
    }
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites>\n";
  xml += "  <testsuite name=\"gilsan\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" +
         std::to_string(skipped) + "\" time=\"" + decimal(total_seconds) + "\">\n";
  for (const ScenarioResult& result : results) {
    xml += "    <testcase classname=\"" + xml_escaped(class_name(result.scenario)) + "\" name=\"" +
           xml_escaped(case_name(result)) + "\" file=\"" +
           xml_escaped(result.scenario) + "\" time=\"" + decimal(result.run.elapsed.count()) + "\">\n";
    const std::string message = xml_escaped(one_line_report(result));
    switch (result.status()) {
      case ResultStatus::Failed:
        xml += "      <failure message=\"" + message + "\">" + xml_escaped(text_report(result)) + "</failure>\n";
        break;
      case ResultStatus::HarnessError:
      case ResultStatus::Interrupted:
        xml += "      <error message=\"" + message + "\">" + xml_escaped(text_report(result)) + "</error>\n";
        break;
      case ResultStatus::Skipped:
        xml += "      <skipped message=\"" + xml_escaped(result.outcome.detail) + "\"/>\n";
        break;
      case ResultStatus::Passed: break;
    }
    xml += "      <system-out>" + xml_escaped(result.run.stdout_text) + "</system-out>\n";
    xml += "      <system-err>" + xml_escaped(result.run.stderr_text) + "</system-err>\n";
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace gilsan
