#include "harness/scenario/sanitizer_request.h"

#include <cstdlib>
#include <filesystem>

#ifdef GILSAN_WITH_SANITIZER
#include "checkers/core/options.h"
#include "checkers/core/suppressions.h"
#endif

namespace gilsan {

std::string scenario_suppressions_path(const std::string& scenario, const std::string& file) {
  return std::filesystem::absolute(std::filesystem::path(scenario).parent_path() / file).string();
}

#ifdef GILSAN_WITH_SANITIZER

std::optional<std::string> sanitizer_options_error() {
  using namespace checkers;
  const char* text = std::getenv("GILSAN_OPTIONS");
  try {
    const Options options = parse_options(text != nullptr ? text : "");
    if (!options.suppressions.empty()) Suppressions::load(options.suppressions);
    return std::nullopt;
  } catch (const OptionsError& error) {
    return error.what();
  } catch (const SuppressionError& error) {
    return "GILSAN_OPTIONS: suppressions: " + std::string(error.what());
  }
}

void check_scenario_suppressions(const std::string& scenario, const ScenarioHeader& header) {
  if (!header.suppressions) return;
  try {
    checkers::Suppressions::load(scenario_suppressions_path(scenario, *header.suppressions));
  } catch (const checkers::SuppressionError& error) {
    throw ScenarioInputError(scenario, 0, "its suppressions file: " + std::string(error.what()));
  }
}

#else  // a build without the checkers: the parent is told at start, not left guessing

std::optional<std::string> sanitizer_options_error() {
  return "the sanitizer is not part of this build (checkers/sources); use --sanitize off";
}

void check_scenario_suppressions(const std::string&, const ScenarioHeader&) {}

#endif

}  // namespace gilsan
