#include "harness/reports/sarif_report.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/reports/explanations.h"
#include "harness/reports/reported_line.h"

namespace gilsan {
namespace {

using nlohmann::json;

constexpr const char* kSchemaUri = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

// The scenario's line named by the first frame of `stacks` that names it.
std::optional<int> first_line(const std::vector<const json*>& stacks, std::string_view scenario) {
  for (const json* stack : stacks)
    for (const json& frame : *stack)
      if (frame.is_string())
        if (std::optional<int> line = line_named(frame.get_ref<const std::string&>(), scenario)) return line;
  return std::nullopt;
}

constexpr const char* kRootId = "SRCROOT";

// RFC 3986: everything but unreserved characters and '/' percent-encoded.
std::string uri_encoded(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0xF];
    }
  }
  return encoded;
}

std::string file_uri(const std::filesystem::path& absolute) { return "file://" + uri_encoded(absolute.string()); }

// The scenario relative to the root (with SRCROOT), or an absolute file URI when it lies outside.
json artifact_location(const std::string& scenario, const std::string& root) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(scenario, error).lexically_normal();
  const std::filesystem::path relative = absolute.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") return {{"uri", uri_encoded(relative.string())}, {"uriBaseId", kRootId}};
  return {{"uri", file_uri(absolute)}};
}

json scenario_location(const std::string& scenario, const std::string& root, int line) {
  return {{"physicalLocation", {{"artifactLocation", artifact_location(scenario, root)}, {"region", {{"startLine", line}}}}}};
}

json message_location(const std::string& text) { return {{"message", {{"text", text}}}}; }

const json* array_at(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_array() ? &*found : nullptr;
}

std::string string_at(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// A sanitizer report (docs/sanitizer.md, gilsan-sanitizer-report/1) as a result.
json report_result(const json& report, const ScenarioResult& run, const std::string& context, const std::string& root) {
  std::vector<const json*> stacks;
  json result = {{"ruleId", string_at(report, "checker")}, {"level", "error"}};
  std::string text = string_at(report, "summary");
  if (const std::string deadlock_class = string_at(report, "class"); !deadlock_class.empty())
    text += " (would be " + deadlock_class + ")";
  result["message"] = {{"text", text + " in " + context}};
  if (const json* edges = array_at(report, "edges"); edges != nullptr && !edges->empty()) {
    json thread_flows = json::array();
    for (const json& edge : *edges) {
      json steps = json::array({{{"location", message_location(string_at(edge, "sentence"))}}});
      if (const json* stack = array_at(edge, "stack")) {
        stacks.push_back(stack);
        for (const json& frame : *stack)
          if (frame.is_string()) steps.push_back({{"location", message_location(frame.get<std::string>())}});
      }
      thread_flows.push_back({{"locations", std::move(steps)}});
    }
    result["codeFlows"] = json::array({{{"threadFlows", std::move(thread_flows)}}});
  }
  if (const json* stack = array_at(report, "stack"); stack != nullptr && !stack->empty()) {
    stacks.push_back(stack);
    json related = json::array();
    int id = 1;
    for (const json& frame : *stack)
      if (frame.is_string()) {
        json location = message_location(frame.get<std::string>());
        location["id"] = id++;
        related.push_back(std::move(location));
      }
    result["relatedLocations"] = std::move(related);
  }
  result["locations"] =
      json::array({scenario_location(run.scenario, root, first_line(stacks, run.scenario).value_or(1))});
  return result;
}

// The rule a run's outcome stands for: the deadlock class or checker it names, else its kind.
std::string outcome_rule(const Outcome& outcome) {
  if (outcome.kind == OutcomeKind::Deadlock || outcome.kind == OutcomeKind::Report) return outcome.detail;
  const std::string text = outcome.to_string();
  return text.substr(0, text.find(':'));
}

// A rule's descriptions from its explain page: the title and the "What it is" paragraph.
json rule_for(const std::string& id) {
  json rule = {{"id", id}};
  for (const Explanation& page : explanations()) {
    if (page.name != id) continue;
    const std::string_view text = page.text;
    const std::string_view title = text.substr(0, text.find('\n'));
    rule["shortDescription"] = {{"text", std::string(title.substr(title.find_first_not_of("# ")))}};
    const std::size_t what = text.find("## What it is\n");
    if (what != std::string_view::npos) {
      std::string_view paragraph = text.substr(what + 14);
      paragraph = paragraph.substr(0, paragraph.find("\n\n"));
      std::string joined(paragraph);
      for (char& c : joined) c = c == '\n' ? ' ' : c;
      rule["fullDescription"] = {{"text", joined}};
    }
    rule["help"] = {{"text", std::string(text)}, {"markdown", std::string(text)}};
    return rule;
  }
  rule["shortDescription"] = {{"text", "the scenario's outcome was " + id + ", not what its header expects"}};
  return rule;
}

}  // namespace

std::string default_sarif_root() {
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (error) return "/";
  for (std::filesystem::path folder = here; !folder.empty(); folder = folder.parent_path()) {
    if (std::filesystem::exists(folder / ".git", error)) return folder.string();
    if (folder == folder.parent_path()) break;
  }
  return here.string();
}

std::string sarif_log(const std::vector<ScenarioResult>& runs, const std::string& root) {
  json results = json::array();
  std::map<std::string, json> rules;
  for (const ScenarioResult& run : runs) {
    const ResultStatus status = run.status();
    if (status != ResultStatus::Failed && status != ResultStatus::HarnessError) continue;
    const std::string context = run.scenario + (run.implementation ? " [" + *run.implementation + "]" : "") +
                                ": expected " + run.header.expect.to_string() + ", got " + run.outcome.to_string();
    bool outcome_reported = false;
    if (run.sanitizer && !run.sanitizer->json.empty() && !run.sanitizer->error) {
      const json document = json::parse(run.sanitizer->json, nullptr, false);
      if (const json* reports = document.is_object() ? array_at(document, "reports") : nullptr) {
        for (const json& report : *reports) {
          if (!report.is_object()) continue;
          results.push_back(report_result(report, run, context, root));
          const std::string checker = string_at(report, "checker");
          outcome_reported = outcome_reported || (run.outcome.kind == OutcomeKind::Report && run.outcome.detail == checker);
        }
      }
    }
    if (!outcome_reported) {
      const std::string rule = outcome_rule(run.outcome);
      const std::string about = run.watchdog ? run.watchdog->summary : run.outcome.to_string();
      results.push_back({{"ruleId", rule},
                         {"level", "error"},
                         {"message", {{"text", about + " in " + context}}},
                         {"locations", json::array({scenario_location(run.scenario, root, reported_line(run).value_or(1))})}});
    }
  }
  for (const json& result : results) {
    const std::string id = result["ruleId"];
    if (!rules.contains(id)) rules.emplace(id, rule_for(id));
  }
  json rule_list = json::array();
  for (auto& [id, rule] : rules) rule_list.push_back(std::move(rule));
  const json log = {
      {"$schema", kSchemaUri},
      {"version", "2.1.0"},
      {"runs", json::array({{{"tool", {{"driver", {{"name", "gilsan"}, {"rules", std::move(rule_list)}}}}},
                             {"originalUriBaseIds", {{kRootId, {{"uri", file_uri(std::filesystem::path(root) / "")}}}}},
                             {"results", std::move(results)}}})}};
  return log.dump(2) + "\n";
}

}  // namespace gilsan
