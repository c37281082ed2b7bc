#include "harness/runner/command_line.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace gilsan {
namespace {

// Walks the arguments of one subcommand; "--name=value" and "--name value" are both accepted.
class ArgumentCursor {
 public:
  ArgumentCursor(std::string_view command, std::span<const std::string_view> arguments)
      : command_(command), arguments_(arguments) {}

  // The next argument, nullopt at the end. A "--" is skipped and makes every later argument an
  // operand; "--name=value" is split, the value waiting for value_of().
  std::optional<std::string_view> next() {
    while (next_ < arguments_.size()) {
      std::string_view argument = arguments_[next_++];
      attached_.reset();
      if (only_operands_) return argument;
      if (argument == "--") {
        only_operands_ = true;
        continue;
      }
      if (argument.starts_with("--")) {
        if (const auto equals = argument.find('='); equals != std::string_view::npos) {
          attached_ = argument.substr(equals + 1);
          argument = argument.substr(0, equals);
        }
      }
      return argument;
    }
    return std::nullopt;
  }

  // Whether a "--" has been passed: what follows is operands only.
  bool after_separator() const { return only_operands_; }

  bool is_option(std::string_view argument) const {
    return !only_operands_ && argument.size() > 1 && argument.starts_with('-');
  }

  std::string value_of(std::string_view option) {
    if (attached_) return std::string(*std::exchange(attached_, std::nullopt));
    if (next_ >= arguments_.size()) throw UsageError("gilsan " + std::string(command_) + ": " + std::string(option) + " needs a value");
    return std::string(arguments_[next_++]);
  }

  [[noreturn]] void unknown(std::string_view option) const {
    throw UsageError("gilsan " + std::string(command_) + ": unknown option '" + std::string(option) + "'");
  }

 private:
  std::string_view command_;
  std::span<const std::string_view> arguments_;
  std::size_t next_ = 0;
  std::optional<std::string_view> attached_;
  bool only_operands_ = false;
};

std::string checked_driver(const std::string& value) {
  if (value != "auto" && value != "real" && value != "sim")
    throw UsageError("--driver must be auto, real or sim, not '" + value + "'");
  return value;
}

double checked_timeout(const std::string& value) {
  double seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds) || seconds <= 0)
    throw UsageError("--timeout must be a positive number of seconds, not '" + value + "'");
  return seconds;
}

std::chrono::milliseconds checked_quiet(const std::string& value) {
  long long milliseconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), milliseconds);
  if (error != std::errc() || end != value.data() + value.size() || milliseconds <= 0 || milliseconds > 3'600'000)
    throw UsageError("--quiet-ms must be a whole number of milliseconds from 1 to 3600000, not '" + value + "'");
  return std::chrono::milliseconds(milliseconds);
}

std::string checked_profile(const std::string& value) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(value, error)) throw UsageError("--profile " + value + ": no such file");
  return std::filesystem::absolute(value, error).string();
}

// The options `run` and `suite` share. Returns false when `option` is none of them.
bool take_run_option(ArgumentCursor& cursor, std::string_view option, RunSettings& settings) {
  if (option == "--driver") {
    settings.driver_request = checked_driver(cursor.value_of(option));
  } else if (option == "--profile") {
    settings.profile_path = checked_profile(cursor.value_of(option));
  } else if (option == "--timeout") {
    settings.timeout_override_seconds = checked_timeout(cursor.value_of(option));
  } else if (option == "--quiet-ms") {
    settings.watchdog.quiet = checked_quiet(cursor.value_of(option));
  } else if (option == "--sanitize") {
    const std::string value = cursor.value_of(option);
    if (value != "on" && value != "off") throw UsageError("--sanitize must be on or off, not '" + value + "'");
    settings.sanitize = value == "on";
  } else if (option == "--python-env") {
    try {
      settings.python = virtualenv_python_environment(cursor.value_of(option));
    } catch (const std::invalid_argument& error) {
      throw UsageError(error.what());
    }
  } else {
    return false;
  }
  return true;
}

RunCommand parse_run(std::span<const std::string_view> arguments) {
  RunCommand command;
  ArgumentCursor cursor("run", arguments);
  std::vector<std::string> operands;
  std::vector<std::string> program;  // after "--": a command line to run instead of a scenario
  while (const std::optional<std::string_view> next = cursor.next()) {
    const std::string_view argument = *next;
    if (cursor.after_separator()) {
      program.emplace_back(argument);
    } else if (!cursor.is_option(argument)) {
      operands.emplace_back(argument);
    } else if (argument == "--expect") {
      command.expect = cursor.value_of(argument);
    } else if (take_run_option(cursor, argument, command.settings)) {
    } else if (argument == "--report") {
      const std::string format = cursor.value_of(argument);
      if (format != "text" && format != "json") throw UsageError("--report must be text or json, not '" + format + "'");
      command.format = format == "json" ? ReportFormat::Json : ReportFormat::Text;
    } else if (argument == "-o" || argument == "--output") {
      command.output_path = cursor.value_of(argument);
    } else if (argument == "--dot") {
      command.settings.watchdog.dot_path = cursor.value_of(argument);
    } else {
      cursor.unknown(argument);
    }
  }
  if (!program.empty() || (arguments.size() > 0 && arguments.back() == "--")) {
    if (!operands.empty())
      throw UsageError("gilsan run: a scenario or a program after --, not both ('" + operands.front() + "')");
    if (program.empty()) throw UsageError("gilsan run: which program? (gilsan run [options] -- COMMAND [ARGS...])");
    command.settings.program = std::move(program);
    return command;
  }
  if (command.expect) throw UsageError("gilsan run: --expect is for a program run with -- (a scenario says it in its header)");
  if (operands.size() != 1)
    throw UsageError(operands.empty() ? "gilsan run: which scenario? (gilsan run SCENARIO.py)"
                                      : "gilsan run: one scenario at a time (use gilsan suite for several)");
  command.scenario = operands.front();
  return command;
}

SuiteCommand parse_suite(std::span<const std::string_view> arguments) {
  SuiteCommand command;
  ArgumentCursor cursor("suite", arguments);
  while (const std::optional<std::string_view> next = cursor.next()) {
    const std::string_view argument = *next;
    if (!cursor.is_option(argument)) {
      command.settings.roots.emplace_back(argument);
    } else if (take_run_option(cursor, argument, command.settings.run)) {
    } else if (argument == "--junit") {
      command.settings.junit_path = cursor.value_of(argument);
    } else if (argument == "--json") {
      command.settings.json_path = cursor.value_of(argument);
    } else if (argument == "--filter") {
      command.settings.filter = cursor.value_of(argument);
    } else {
      cursor.unknown(argument);
    }
  }
  if (command.settings.roots.empty()) command.settings.roots.push_back(default_scenario_folder());
  return command;
}

ProgramArguments parse_program_child(std::span<const std::string_view> arguments) {
  ProgramArguments child;
  ArgumentCursor cursor(kProgramChildCommand, arguments);
  while (const std::optional<std::string_view> next = cursor.next()) {
    if (!cursor.after_separator()) throw UsageError(std::string(kProgramChildCommand) + " is internal; use 'gilsan run -- COMMAND'");
    child.command.emplace_back(*next);
  }
  if (child.command.empty()) throw UsageError(std::string(kProgramChildCommand) + ": no command");
  return child;
}

ChildArguments parse_child(std::span<const std::string_view> arguments) {
  ChildArguments child;
  ArgumentCursor cursor(kScenarioChildCommand, arguments);
  while (const std::optional<std::string_view> next = cursor.next()) {
    const std::string_view argument = *next;
    if (!cursor.is_option(argument))
      child.scenario_path = std::string(argument);
    else if (argument == "--driver")
      child.driver_request = checked_driver(cursor.value_of(argument));
    else if (argument == "--python-env")
      child.virtualenv = cursor.value_of(argument);
    else
      cursor.unknown(argument);
  }
  if (child.scenario_path.empty())
    throw UsageError(std::string(kScenarioChildCommand) + " is internal; use 'gilsan run SCENARIO.py'");
  return child;
}

}  // namespace

std::string default_scenario_folder() {
  if (const char* folder = std::getenv("GILSAN_SCENARIO_DIR"); folder != nullptr && *folder != '\0') return folder;
  return GILSAN_SOURCE_DIR "/scenarios";
}

Command parse_command_line(std::span<const std::string_view> arguments) {
  if (arguments.empty()) throw UsageError("no command given (gilsan run, gilsan suite)");
  const std::string_view command = arguments.front();
  const auto rest = arguments.subspan(1);
  if (command == "--help" || command == "-h" || command == "help") return HelpCommand{};
  for (std::string_view argument : rest) {
    if (argument == "--") break;  // a program's own --help is the program's
    if (argument == "--help" || argument == "-h") return HelpCommand{};
  }
  if (command == "run") return parse_run(rest);
  if (command == "suite") return parse_suite(rest);
  if (command == kScenarioChildCommand) return parse_child(rest);
  if (command == kProgramChildCommand) return parse_program_child(rest);
  throw UsageError("unknown command '" + std::string(command) + "'");
}

std::string usage_text() {
  return R"(usage:
  gilsan run SCENARIO.py [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS]
                         [--python-env VENV] [--report text|json] [-o REPORT_FILE]
                         [--quiet-ms N] [--dot FILE] [--sanitize on|off]
  gilsan run [--driver ...] [--expect OUTCOME] [--timeout SECONDS] [--report ...] [-o FILE]
             [--quiet-ms N] [--dot FILE] [--sanitize on|off] -- COMMAND [ARGS...]
  gilsan suite [PATH...] [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS]
                         [--python-env VENV] [--junit FILE] [--json FILE] [--filter TEXT]
                         [--quiet-ms N] [--sanitize on|off]
  gilsan probe [--driver real|sim] [--profile IN] [-o PROFILE.json] [--markdown FILE]
  gilsan probe --diff A.json B.json
  gilsan --help

run     runs one scenario in a child process with an embedded Python and reports its outcome
        against the scenario's '# gilsan: expect = ...' header. A watchdog supervises the child:
        a hang becomes the outcome deadlock:CLASS (docs/watchdog.md), with its report.
        With -- COMMAND, runs that program as it is (your python and venv, or a native binary)
        under the same watchdog, driver and sanitizer (injected), expecting --expect (default
        pass) and with no timeout unless --timeout gives one.
suite   runs every *.py scenario under each PATH (default: )" +
         default_scenario_folder() + R"(),
        one line each, then "N passed, N failed, N skipped".
probe   measures what the driver blocks and allows around host functions (docs/probe.md; its own
        exit codes are listed there).

  --driver       the CUDA driver the gilsan module uses (default auto: real if usable, else sim)
  --profile      the simulated driver's behaviour profile (JSON)
  --timeout      seconds before the scenario is stopped; overrides the header's timeout (default 60)
  --expect       (run -- COMMAND) the expected outcome, as a header's expect (default pass)
  --python-env   a virtualenv whose site-packages the scenario sees (same Python version as gilsan's)
  --report       the report's form on stdout or in -o's file (default text); it includes the
                 watchdog's hang or crash report (class, cycle, stacks) when there is one
  --quiet-ms     the watchdog reports a hang after N ms without progress while a thread is blocked
                 (default 500; 20 times as long under valgrind)
  --dot          write the watchdog's wait-for graph (Graphviz DOT) to FILE when it reports
  --sanitize     run the sanitizer in the scenario (default on; docs/sanitizer.md): its findings
                 become the outcome report:CHECKER; GILSAN_OPTIONS configures it
  --junit        also write JUnit XML for CI
  --json         also write the results as JSON (schema gilsan-suite-results/1)
  --filter       only scenarios whose path contains TEXT

exit codes:
  0    every outcome matched its expectation (skipped scenarios count as matched)
  1    at least one outcome did not match
  2    usage or input error: bad flag, unreadable file, malformed scenario header
  3    internal error in gilsan itself
  130  gilsan was interrupted (SIGINT, SIGTERM, SIGHUP); the running scenario was killed
)";
}

}  // namespace gilsan
