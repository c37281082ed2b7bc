#include "harness/runner/suite_merge.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace gilsan {
namespace {

using json = nlohmann::json;

json read_document(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error(path + ": cannot be read");
  std::ostringstream text;
  text << stream.rdbuf();
  json document = json::parse(text.str(), nullptr, false);
  if (document.is_discarded()) throw std::runtime_error(path + ": not JSON");
  if (!document.is_object() || document.value("schema", "") != "gilsan-suite-results/1")
    throw std::runtime_error(path + ": not a gilsan-suite-results/1 document (gilsan suite --json)");
  return document;
}

// "conformance/x.py [cupy]": the scenario's path from the scenarios folder and its implementation, the
// key a document's "void" map uses (as tests/runner/check_parity.py does).
std::string run_key(const ScenarioResult& result) {
  constexpr std::string_view kMarker = "scenarios/";
  const auto at = result.scenario.rfind(kMarker);
  std::string key = at == std::string::npos ? result.scenario : result.scenario.substr(at + kMarker.size());
  if (result.implementation) key += " [" + *result.implementation + "]";
  return key;
}

ResultStatus status_named(const std::string& name, const std::string& path) {
  if (name == "passed") return ResultStatus::Passed;
  if (name == "failed") return ResultStatus::Failed;
  if (name == "skipped") return ResultStatus::Skipped;
  if (name == "interrupted") return ResultStatus::Interrupted;
  if (name == "error") return ResultStatus::HarnessError;
  throw std::runtime_error(path + ": unknown status '" + name + "'");
}

}  // namespace

std::vector<ScenarioResult> read_suite_results(const std::vector<std::string>& paths, RunSettings& settings) {
  std::vector<ScenarioResult> results;
  std::set<std::pair<std::string, std::string>> seen;
  for (const std::string& path : paths) {
    const json document = read_document(path);
    const std::string driver = document.value("driver", "");
    const std::string platform = document.value("platform", "");
    // Runs the document declares void after the fact (a measurement spoiled, e.g. by other runs sharing
    // the GPU), each with why: merged as skipped, with the reason and the outcome they had.
    const json voided = document.value("void", json::object());
    if (settings.driver_request.empty() || settings.driver_request == "auto") {
      settings.driver_request = driver;
    } else if (settings.driver_request != driver) {
      throw std::runtime_error(path + ": a run on the " + driver + " driver, the others on the " +
                               settings.driver_request + " driver: one suite at a time");
    }
    try {
      for (const json& record : document.at("results")) {
        ScenarioResult result;
        result.scenario = record.at("scenario").get<std::string>();
        if (!record.at("implementation").is_null()) result.implementation = record.at("implementation").get<std::string>();
        if (const auto version = record.find("implementation_version"); version != record.end() && !version->is_null())
          result.run.report.implementation_version = version->get<std::string>();
        if (!platform.empty()) result.run.report.platform = platform;
        if (!seen.insert({result.scenario, result.implementation.value_or("")}).second)
          throw std::runtime_error(result.scenario + " is in two shards");
        result.header.expect = parse_expectation(record.at("expect").get<std::string>());
        result.outcome = outcome_from_string(record.at("outcome").get<std::string>());
        result.matched = status_named(record.at("status").get<std::string>(), path) == ResultStatus::Passed;
        result.run.elapsed = std::chrono::duration<double>(record.at("seconds").get<double>());
        // What explained a failure travels as its excerpt; it stands in for the child's stderr.
        result.run.stderr_text = record.value("excerpt", "");
        if (const auto reason = voided.find(run_key(result)); reason != voided.end()) {
          result.outcome = Outcome{OutcomeKind::Skipped, "void (was " + result.outcome.to_string() + "): " +
                                                             reason->get<std::string>()};
          result.matched = false;
        }
        results.push_back(std::move(result));
      }
    } catch (const json::exception& error) {
      throw std::runtime_error(path + ": " + error.what());
    } catch (const std::invalid_argument& error) {
      throw std::runtime_error(path + ": " + error.what());
    } catch (const std::runtime_error& error) {
      throw std::runtime_error(std::string(error.what()).starts_with(path) ? error.what() : path + ": " + error.what());
    }
  }
  return results;
}

}  // namespace gilsan
