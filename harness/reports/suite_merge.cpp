#include "harness/reports/suite_merge.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "harness/text/printable.h"

namespace gilsan {
namespace {

using json = nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error(path + ": cannot be read");
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
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

SuiteResultsDocument parse_suite_results(std::string_view text, const std::string& source) {
  const json document = json::parse(text, nullptr, false);
  if (document.is_discarded()) throw std::runtime_error(printable(source) + ": not JSON");
  if (!document.is_object() || !document.contains("schema") || document["schema"] != "gilsan-suite-results/1")
    throw std::runtime_error(printable(source) + ": not a gilsan-suite-results/1 document (gilsan suite --json)");
  SuiteResultsDocument parsed;
  try {
    parsed.driver = document.value("driver", "");
    const std::string platform = document.value("platform", "");
    // Results of gilsans before the field: "" (not told).
    const std::string made_by = document.value("gilsan", "");
    // Runs the document declares void after the fact (a measurement spoiled, e.g. by other runs sharing
    // the GPU), each with why: merged as skipped, with the reason and the outcome they had.
    const json voided = document.value("void", json::object());
    for (const json& record : document.at("results")) {
      ScenarioResult result;
      result.scenario = record.at("scenario").get<std::string>();
      if (!record.at("implementation").is_null()) result.implementation = record.at("implementation").get<std::string>();
      if (const auto version = record.find("implementation_version"); version != record.end() && !version->is_null())
        result.run.report.implementation_version = version->get<std::string>();
      if (!platform.empty()) result.run.report.platform = platform;
      result.gilsan_version = made_by;
      result.header.expect = parse_expectation(record.at("expect").get<std::string>());
      result.outcome = outcome_from_string(record.at("outcome").get<std::string>());
      result.matched = status_named(record.at("status").get<std::string>(), source) == ResultStatus::Passed;
      result.run.elapsed = std::chrono::duration<double>(record.at("seconds").get<double>());
      // What explained a failure travels as its excerpt; it stands in for the child's stderr.
      result.run.stderr_text = record.value("excerpt", "");
      if (voided.is_object()) {
        if (const auto reason = voided.find(run_key(result)); reason != voided.end()) {
          result.outcome = Outcome{OutcomeKind::Skipped, "void (was " + result.outcome.to_string() + "): " +
                                                             reason->get<std::string>()};
          result.matched = false;
        }
      }
      parsed.results.push_back(std::move(result));
    }
  } catch (const json::exception& error) {
    throw std::runtime_error(printable(source + ": " + error.what()));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(printable(source + ": " + error.what()));
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    throw std::runtime_error(printable(message.starts_with(source) ? message : source + ": " + message));
  }
  return parsed;
}

std::vector<ScenarioResult> read_suite_results(const std::vector<std::string>& paths, RunSettings& settings) {
  std::vector<ScenarioResult> results;
  std::set<std::pair<std::string, std::string>> seen;
  std::string version;  // of the first input that names one: a report labels the whole set with it
  for (const std::string& path : paths) {
    SuiteResultsDocument document = parse_suite_results(read_text(path), path);
    if (settings.driver_request.empty() || settings.driver_request == "auto") {
      settings.driver_request = document.driver;
    } else if (settings.driver_request != document.driver) {
      throw std::runtime_error(path + ": a run on the " + document.driver + " driver, the others on the " +
                               settings.driver_request + " driver: one suite at a time");
    }
    const std::string document_version = reported_driver_version(document.results);
    if (version.empty()) {
      version = document_version;
    } else if (!document_version.empty() && document_version != version) {
      throw std::runtime_error(printable(path + ": a run on driver " + document_version + ", the others on driver " +
                                         version + ": one suite at a time"));
    }
    for (ScenarioResult& result : document.results) {
      if (!seen.insert({result.scenario, result.implementation.value_or("")}).second)
        throw std::runtime_error(printable(path + ": " + result.scenario + " is in two shards"));
      results.push_back(std::move(result));
    }
  }
  return results;
}

std::string driver_version_in(std::string_view platform) {
  constexpr std::string_view kMarker = ", driver ";
  const auto at = platform.find(kMarker);
  if (at == std::string_view::npos) return "";
  const std::string_view rest = platform.substr(at + kMarker.size());
  return std::string(rest.substr(0, rest.find_first_of(",;")));
}

std::string reported_gilsan_version(const std::vector<ScenarioResult>& results) {
  for (const ScenarioResult& result : results) {
    if (!result.gilsan_version.empty()) return result.gilsan_version;
  }
  return "";
}

std::string reported_driver_version(const std::vector<ScenarioResult>& results) {
  for (const ScenarioResult& result : results)
    if (result.run.report.platform)
      if (std::string version = driver_version_in(*result.run.report.platform); !version.empty()) return version;
  return "";
}

std::vector<std::string> reported_packages(const std::vector<ScenarioResult>& results) {
  std::set<std::string> packages;
  for (const ScenarioResult& result : results) {
    if (!result.run.report.implementation_version) continue;
    const std::string& listed = *result.run.report.implementation_version;
    for (std::size_t start = 0; start < listed.size();) {
      const std::size_t end = listed.find(", ", start);
      const std::string package = listed.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!package.empty()) packages.insert(package);
      start = end == std::string::npos ? listed.size() : end + 2;
    }
  }
  return {packages.begin(), packages.end()};
}

std::vector<std::string> packages_only_in(const std::vector<ScenarioResult>& results,
                                          const std::vector<ScenarioResult>& other) {
  const std::vector<std::string> ours = reported_packages(results);
  const std::vector<std::string> theirs = reported_packages(other);
  std::vector<std::string> only;
  std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(only));
  return only;
}

void check_comparable(const ComparedRun& compared, const std::string& driver, const std::vector<ScenarioResult>& results) {
  if (compared.driver != driver) return;
  // One kind of driver on both sides: only their driver versions can tell the two runs apart.
  const std::string ours = reported_driver_version(results);
  const std::string theirs = reported_driver_version(compared.results);
  // The same driver (or none named) run by two gilsans: a gilsan update.
  const std::string our_gilsan = reported_gilsan_version(results);
  const std::string their_gilsan = reported_gilsan_version(compared.results);
  if (ours == theirs && !our_gilsan.empty() && !their_gilsan.empty() && our_gilsan != their_gilsan) return;
  // The same driver and gilsan with other releases of the implementations: a peer update.
  if (ours == theirs && our_gilsan == their_gilsan && !packages_only_in(results, compared.results).empty()) return;
  const std::string lacking = "needs results of another driver, driver version, gilsan or implementation "
                              "versions: both are of the " + driver + " driver";
  if (ours.empty() && theirs.empty()) throw std::runtime_error(lacking + ", and neither names its driver version");
  if (ours.empty() || theirs.empty())
    throw std::runtime_error(lacking + ", and the " + (ours.empty() ? "merged" : "--compare") +
                             " results name no driver version in their platform");
  if (ours == theirs) throw std::runtime_error(printable(lacking + " " + ours));
}

}  // namespace gilsan
