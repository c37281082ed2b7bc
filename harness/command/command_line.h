// The gilsan command line: `gilsan run`, `gilsan suite`, `gilsan --help`, and the hidden
// `gilsan __scenario-child` that `run` re-executes itself as.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "harness/reports/explanations.h"
#include "harness/reports/suite_merge.h"
#include "harness/runner/scenario_run.h"
#include "harness/runner/suite.h"
#include "harness/scenario/child_protocol.h"

namespace gilsan {

// Text: the short report a person reads; Full: with every thread and native frame; Json: everything.
enum class ReportFormat { Text, Full, Json };

struct HelpCommand {
  std::string command;  // `gilsan help COMMAND`, `gilsan COMMAND --help`; empty: `gilsan --help`
};

struct RunCommand {
  std::string scenario;
  RunSettings settings;
  ReportFormat format = ReportFormat::Text;
  std::optional<std::string> output_path;  // -o: the report goes there, a one-line summary to stdout
  std::optional<std::string> expect;       // --expect, for a program (settings.program)
  std::optional<std::string> sarif_path;   // --sarif: the run's failure as SARIF (sarif_report.h)
  std::optional<std::string> sarif_root;   // --sarif-root: SARIF's URIs relative to it (default_sarif_root)
};

// What a suite writes besides its console lines (harness/reports).
struct SuiteOutputs {
  std::optional<std::string> junit_path;
  std::optional<std::string> sarif_path;     // --sarif: code-scanning results (sarif_report.h)
  std::optional<std::string> sarif_root;     // --sarif-root: SARIF's URIs relative to it (default_sarif_root)
  std::optional<std::string> json_path;      // --json: the results, schema gilsan-suite-results/1
  std::optional<std::string> markdown_path;  // --markdown: the conformance report (conformance_markdown.h)
  std::string command_line;                  // how the suite was asked for, for the Markdown report
};

struct SuiteCommand {
  SuiteSettings settings;
  SuiteOutputs outputs;
  bool verbose = false;  // --verbose: a line per skipped run too, not one per reason
};

using Command = std::variant<HelpCommand, RunCommand, SuiteCommand, MergeCommand, ExplainCommand, ChildArguments,
                             ProgramArguments>;

// A bad flag or value; main prints it with a pointer to --help and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `arguments` excludes argv[0]. Each command's options are a table parsed with CLI11 (harness/cli,
// whose rules every command shares); the values are checked as they are met (command_line_values.h:
// numbers, choices, that --profile and --python-env exist), scenario files not: their errors come with
// file and line later.
Command parse_command_line(std::span<const std::string_view> arguments);

std::string usage_text();

// The folder `gilsan suite` runs without PATH arguments: $GILSAN_SCENARIO_DIR, else an installed
// tree's share/gilsan/scenarios, else the source tree's scenarios/.
std::string default_scenario_folder();

}  // namespace gilsan
