#include "harness/reports/conformance_markdown.h"

#include <algorithm>
#include <map>

#include "harness/reports/failure_excerpt.h"
#include "harness/reports/suite_merge.h"

namespace gilsan {
namespace {

std::string cell(const ScenarioResult& result) {
  switch (result.status()) {
    case ResultStatus::Passed: return result.outcome.kind == OutcomeKind::Pass ? "pass" : "found `" + result.outcome.to_string() + "`";
    case ResultStatus::Failed: return "**FAIL** `" + result.outcome.to_string() + "`";
    case ResultStatus::Skipped: return result.outcome.detail.starts_with("void") ? "void" : "skip";
    case ResultStatus::Interrupted: return "stopped";
    case ResultStatus::HarnessError: return "**error**";
  }
  return "?";
}

// A table cell cannot hold '|' or a line break.
std::string escaped(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// Every line of `text` with `prefix` in front.
std::string indented(const std::string& text, const std::string& prefix) {
  std::string out;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    out += prefix + text.substr(start, end - start) + "\n";
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

template <typename T>
void add_once(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// A side of the comparison: its kind of driver, its driver version where both sides are of one kind
// (gilsan merge compares those only when their versions differ), e.g. "real 580.159.04", and the gilsan
// that ran it where that is all that tells them apart ("real 580.159.04, gilsan 0.1.0+g1a2b3c4").
std::string side_label(const std::string& driver, const std::vector<ScenarioResult>& results, bool same_kind,
                       bool by_gilsan) {
  const std::string version = same_kind ? reported_driver_version(results) : "";
  std::string label = version.empty() ? driver : driver + " " + version;
  if (by_gilsan) label += ", gilsan " + reported_gilsan_version(results);
  return label;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Runs of `results` and `compared` that both sides ran (neither skipped) and that ended differently.
std::string differences(const std::vector<ScenarioResult>& results, const std::string& driver,
                        const ComparedRun& compared) {
  const bool same_kind = driver == compared.driver;
  const bool same_driver = same_kind && reported_driver_version(results) == reported_driver_version(compared.results);
  // One driver and one gilsan on both sides (check_comparable let them through): the implementations'
  // releases tell them apart, a peer's update.
  const bool by_packages = same_driver && reported_gilsan_version(results) == reported_gilsan_version(compared.results);
  const bool by_gilsan = same_driver && !by_packages;
  std::string ours = side_label(driver, results, same_kind, by_gilsan);
  std::string theirs = side_label(compared.driver, compared.results, same_kind, by_gilsan);
  std::string heading = "\n## Where the " + ours + " and the " + theirs + " driver differ\n\n";
  if (by_packages) {
    ours = joined(packages_only_in(results, compared.results));
    theirs = joined(packages_only_in(compared.results, results));
    heading = "\n## Where " + ours + " and " + theirs + " differ (" + side_label(driver, results, true, false) +
              " driver)\n\n";
  }
  std::map<std::pair<std::string, std::string>, const ScenarioResult*> other;
  for (const ScenarioResult& result : compared.results)
    if (result.implementation) other[{result.scenario, *result.implementation}] = &result;
  int both = 0;
  std::string rows;
  for (const ScenarioResult& result : results) {
    if (!result.implementation) continue;
    const auto found = other.find({result.scenario, *result.implementation});
    if (found == other.end()) continue;
    if (result.status() == ResultStatus::Skipped || found->second->status() == ResultStatus::Skipped) continue;
    ++both;
    if (result.outcome == found->second->outcome) continue;
    rows += "| " + result.scenario + " | " + *result.implementation + " | `" + result.outcome.to_string() + "` | `" +
            found->second->outcome.to_string() + "` |\n";
  }
  std::string text = heading + std::to_string(both) + " runs ran on both " + (by_packages ? "sides" : "drivers") +
                     " (skipped or void on either side: not compared); ";
  if (rows.empty()) return text + "every one ended the same way.\n";
  return text + "these did not:\n\n| scenario | implementation | " + ours + " | " + theirs + " |\n" +
         "| --- | --- | --- | --- |\n" + rows;
}

}  // namespace

std::string conformance_markdown(const std::vector<ScenarioResult>& results, const std::string& driver,
                                 const std::string& command, const ComparedRun* compared) {
  std::vector<std::string> implementations, scenarios;
  std::map<std::pair<std::string, std::string>, const ScenarioResult*> cells;
  std::map<std::string, std::string> versions;
  std::string platform;
  int counts[5] = {};
  for (const ScenarioResult& result : results) {
    if (!result.implementation) continue;
    add_once(implementations, *result.implementation);
    add_once(scenarios, result.scenario);
    cells[{result.scenario, *result.implementation}] = &result;
    ++counts[static_cast<int>(result.status())];
    if (result.run.report.implementation_version) versions[*result.implementation] = *result.run.report.implementation_version;
    if (platform.empty() && result.run.report.platform) platform = *result.run.report.platform;
  }
  std::string text = "# gilsan conformance: every scenario against every implementation (" + driver + " driver)\n\n";
  text += "Generated by `" + command + "` from the suite's results; do not edit by hand.\n\n";
  text += "- Platform: " + (platform.empty() ? std::string("not reported (no run got as far as its implementation)") : platform) + "\n";
  for (const std::string& implementation : implementations) {
    const auto version = versions.find(implementation);
    text += "- `" + implementation + "`: " +
            (version != versions.end() ? version->second : std::string("not installed, or never got to run")) + "\n";
  }
  text += "- Runs: " + std::to_string(counts[0]) + " as expected, " + std::to_string(counts[1]) + " not, " +
          std::to_string(counts[2]) + " skipped, " + std::to_string(counts[4]) + " harness errors\n\n";

  text += "## Matrix\n\npass: passed; found: the deadlock or report the scenario expects; **FAIL**: the outcome it "
          "got instead; skip: not run, void: run but no measurement (the reason of either is in the skipped runs).\n\n| scenario |";
  for (const std::string& implementation : implementations) text += " " + implementation + " |";
  text += "\n| --- |";
  for (std::size_t i = 0; i < implementations.size(); ++i) text += " --- |";
  text += "\n";
  for (const std::string& scenario : scenarios) {
    text += "| " + scenario + " |";
    for (const std::string& implementation : implementations) {
      const auto found = cells.find({scenario, implementation});
      text += " " + (found != cells.end() ? cell(*found->second) : std::string()) + " |";
    }
    text += "\n";
  }

  text += "\n## What each implementation gets wrong\n";
  for (const std::string& implementation : implementations) {
    std::string wrong;
    for (const std::string& scenario : scenarios) {
      const auto found = cells.find({scenario, implementation});
      if (found == cells.end()) continue;
      const ScenarioResult& result = *found->second;
      if (result.status() != ResultStatus::Failed && result.status() != ResultStatus::HarnessError) continue;
      wrong += "- " + scenario + ": expected `" + result.header.expect.to_string() + "`, got `" +
               result.outcome.to_string() + "`\n";
      if (const std::string excerpt = failure_excerpt(result); !excerpt.empty())
        wrong += "\n  ```\n" + indented(excerpt, "  ") + "  ```\n\n";
    }
    text += "\n### " + implementation + "\n\n" + (wrong.empty() ? "Nothing: every run it made went as expected.\n" : wrong);
  }

  text += "\n## Skipped runs\n\n| scenario | implementation | why |\n| --- | --- | --- |\n";
  for (const std::string& scenario : scenarios)
    for (const std::string& implementation : implementations) {
      const auto found = cells.find({scenario, implementation});
      if (found == cells.end() || found->second->status() != ResultStatus::Skipped) continue;
      text += "| " + scenario + " | " + implementation + " | " + escaped(found->second->outcome.detail) + " |\n";
    }
  if (compared != nullptr) text += differences(results, driver, *compared);
  return text;
}

}  // namespace gilsan
