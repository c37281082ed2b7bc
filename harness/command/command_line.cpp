#include "harness/command/command_line.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "harness/cli/option_table.h"
#include "harness/command/command_help.h"
#include "harness/command/command_line_values.h"
#include "harness/driver/install_layout.h"

namespace gilsan {
namespace {

using cli::OptionTable;
using Arguments = std::span<const std::string_view>;

// Parses one command's arguments with its table; what the table finds wrong (an unknown option, a
// missing value) becomes "gilsan COMMAND: ...". A value's own check throws its UsageError itself.
void parse_or_throw(OptionTable& table, std::string_view command, Arguments arguments) {
  if (const std::optional<std::string> problem = table.parse(std::vector<std::string>(arguments.begin(), arguments.end())))
    throw UsageError("gilsan " + std::string(command) + ": " + *problem);
}

// "gilsan SUBCOMMAND ARGS...", as a report names the command that made it.
std::string joined_command(std::string_view subcommand, Arguments arguments) {
  std::string text = "gilsan " + std::string(subcommand);
  for (std::string_view argument : arguments) text += " " + std::string(argument);
  return text;
}

// The options `run` and `suite` share.
void add_run_options(OptionTable& table, RunSettings& settings) {
  table.value("--driver", [&settings](const std::string& value) { settings.driver_request = checked_driver(value); });
  table.value("--profile", [&settings](const std::string& value) { settings.profile_path = checked_profile(value); });
  table.value("--timeout", [&settings](const std::string& value) { settings.timeout_override_seconds = checked_timeout(value); });
  table.value("--max-rss", [&settings](const std::string& value) { settings.max_resident_bytes = checked_max_rss(value); });
  table.value("--quiet-ms", [&settings](const std::string& value) { settings.watchdog.quiet = checked_quiet(value); });
  table.value("--sanitize", [&settings](const std::string& value) { settings.sanitize = checked_sanitize(value); });
  table.value("--native-locks", [&settings](const std::string& value) { settings.native_locks = checked_on_off("--native-locks", value); });
  table.value("--under", [&settings](const std::string& value) { settings.under = checked_under(value); });
  table.value("--python-env", [&settings](const std::string& value) { settings.python = checked_python_env(value); });
}

RunCommand parse_run(Arguments arguments) {
  // After "--" comes a program's own command line, options and all: it is split off unparsed.
  const auto separator = std::find(arguments.begin(), arguments.end(), "--");
  RunCommand command;
  OptionTable table;
  add_run_options(table, command.settings);
  table.value("--expect", [&command](const std::string& value) { command.expect = value; });
  table.value("--impl", [&command](const std::string& value) { command.settings.implementation = checked_implementation(value); });
  table.value("--report", [&command](const std::string& value) { command.format = checked_report(value); });
  table.value("--sarif", [&command](const std::string& value) { command.sarif_path = checked_output("--sarif", value); });
  table.value("--sarif-root", [&command](const std::string& value) { command.sarif_root = checked_sarif_root(value); });
  table.value("-o,--output", [&command](const std::string& value) { command.output_path = checked_output("-o", value); });
  table.value("--dot", [&command](const std::string& value) { command.settings.watchdog.dot_path = checked_output("--dot", value); });
  std::vector<std::string> operands;
  table.operands(operands);
  parse_or_throw(table, "run", Arguments(arguments.begin(), separator));

  if (separator != arguments.end()) {
    if (!operands.empty())
      throw UsageError("gilsan run: a scenario or a program after --, not both ('" + operands.front() + "')");
    command.settings.program.assign(std::next(separator), arguments.end());
    if (command.settings.program.empty()) throw UsageError("gilsan run: which program? (gilsan run [options] -- COMMAND [ARGS...])");
    return command;
  }
  if (command.expect) throw UsageError("gilsan run: --expect is for a program run with -- (a scenario says it in its header)");
  if (operands.size() != 1)
    throw UsageError(operands.empty() ? "gilsan run: which scenario? (gilsan run SCENARIO.py)"
                                      : "gilsan run: one scenario at a time (use gilsan suite for several)");
  command.scenario = operands.front();
  return command;
}

SuiteCommand parse_suite(Arguments arguments) {
  SuiteCommand command;
  SuiteSettings& settings = command.settings;
  SuiteOutputs& outputs = command.outputs;
  outputs.command_line = joined_command("suite", arguments);
  OptionTable table;
  add_run_options(table, settings.run);
  table.value("--junit", [&outputs](const std::string& value) { outputs.junit_path = checked_output("--junit", value); });
  table.value("--sarif", [&outputs](const std::string& value) { outputs.sarif_path = checked_output("--sarif", value); });
  table.value("--sarif-root", [&outputs](const std::string& value) { outputs.sarif_root = checked_sarif_root(value); });
  table.value("--json", [&outputs](const std::string& value) { outputs.json_path = checked_output("--json", value); });
  table.value("--markdown", [&outputs](const std::string& value) { outputs.markdown_path = checked_output("--markdown", value); });
  table.value("--impl", [&settings](const std::string& value) { settings.implementations = checked_implementations(value); });
  table.value("--jobs", [&settings](const std::string& value) { settings.jobs = checked_jobs(value); });
  table.value("--shard", [&settings](const std::string& value) {
    std::tie(settings.shard_index, settings.shard_count) = checked_shard(value);
  });
  table.value("--filter", [&settings](const std::string& value) { settings.filter = value; });
  table.flag("--allow-empty", [&settings] { settings.allow_empty = true; });
  table.flag("--verbose", [&command] { command.verbose = true; });
  table.operands(settings.roots);
  parse_or_throw(table, "suite", arguments);
  if (settings.roots.empty()) settings.roots.push_back(default_scenario_folder());
  return command;
}

MergeCommand parse_merge(Arguments arguments) {
  MergeCommand command;
  command.command_line = joined_command("merge", arguments);
  OptionTable table;
  table.value("--json", [&command](const std::string& value) { command.json_path = checked_output("--json", value); });
  table.value("--junit", [&command](const std::string& value) { command.junit_path = checked_output("--junit", value); });
  table.value("--sarif", [&command](const std::string& value) { command.sarif_path = checked_output("--sarif", value); });
  table.value("--sarif-root", [&command](const std::string& value) { command.sarif_root = checked_sarif_root(value); });
  table.value("--markdown", [&command](const std::string& value) { command.markdown_path = checked_output("--markdown", value); });
  table.repeatable("--compare", [&command](const std::string& value) { command.compare_paths.push_back(value); });
  table.operands(command.inputs);
  parse_or_throw(table, "merge", arguments);
  if (command.inputs.empty()) throw UsageError("gilsan merge: which results? (gilsan merge A.json B.json ...)");
  return command;
}

ExplainCommand parse_explain(Arguments arguments) {
  OptionTable table;
  std::vector<std::string> names;
  table.operands(names);
  parse_or_throw(table, "explain", arguments);
  if (names.size() > 1) throw UsageError("gilsan explain takes one name, a deadlock class or a checker");
  return ExplainCommand{names.empty() ? std::string() : names.front()};
}

// The hidden child modes: `run` writes their command lines itself (scenario_run.cpp), so they take
// only what it writes, and a person who types them is sent to `run`.
ChildArguments parse_scenario_child(Arguments arguments) {
  ChildArguments child;
  OptionTable table;
  table.value("--driver", [&child](const std::string& value) { child.driver_request = checked_driver(value); });
  table.value("--python-env", [&child](const std::string& value) { child.virtualenv = value; });
  table.value("--impl", [&child](const std::string& value) { child.implementation = value; });
  std::vector<std::string> operands;
  table.operands(operands);
  parse_or_throw(table, kScenarioChildCommand, arguments);
  if (operands.empty()) throw UsageError(std::string(kScenarioChildCommand) + " is internal; use 'gilsan run SCENARIO.py'");
  child.scenario_path = operands.back();
  return child;
}

// "__program-child -- COMMAND...": everything after the "--" is the program's, as `run` was given it.
ProgramArguments parse_program_child(Arguments arguments) {
  if (!arguments.empty() && arguments.front() != "--")
    throw UsageError(std::string(kProgramChildCommand) + " is internal; use 'gilsan run -- COMMAND'");
  ProgramArguments child;
  if (!arguments.empty()) child.command.assign(arguments.begin() + 1, arguments.end());
  if (child.command.empty()) throw UsageError(std::string(kProgramChildCommand) + ": no command");
  return child;
}

}  // namespace

std::string default_scenario_folder() {
  if (const char* folder = std::getenv("GILSAN_SCENARIO_DIR"); folder != nullptr && *folder != '\0') return folder;
  return installed_or(installed_data_folder() + "/scenarios", GILSAN_SOURCE_DIR "/scenarios");
}

Command parse_command_line(Arguments arguments) {
  if (arguments.empty()) throw UsageError("no command given (gilsan run, gilsan suite)");
  const std::string_view command = arguments.front();
  const auto rest = arguments.subspan(1);
  if (command == "--help" || command == "-h") return HelpCommand{};
  if (command == "help") {
    if (rest.size() > 1) throw UsageError("gilsan help takes one command name");
    if (rest.empty()) return HelpCommand{};
    if (!command_help(rest.front())) throw UsageError("gilsan help: no command '" + std::string(rest.front()) + "'");
    return HelpCommand{std::string(rest.front())};
  }
  // --help anywhere asks for help, even beside a bad option; but a program's own --help is the program's.
  for (std::string_view argument : rest) {
    if (argument == "--") break;
    if (argument == "--help" || argument == "-h") return HelpCommand{command_help(command) ? std::string(command) : ""};
  }
  if (command == "run") return parse_run(rest);
  if (command == "suite") return parse_suite(rest);
  if (command == "merge") return parse_merge(rest);
  if (command == "explain") return parse_explain(rest);
  if (command == kScenarioChildCommand) return parse_scenario_child(rest);
  if (command == kProgramChildCommand) return parse_program_child(rest);
  throw UsageError("unknown command '" + std::string(command) + "'");
}

}  // namespace gilsan
