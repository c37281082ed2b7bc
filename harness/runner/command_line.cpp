#include "harness/runner/command_line.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <tuple>
#include <vector>

#include "harness/driver/install_layout.h"
#include "harness/profile/driver_profile.h"
#include "harness/runner/command_help.h"
#include "harness/runner/conformance_vocabulary.h"
#include "harness/runner/output_path.h"
#include "harness/runner/resident_memory.h"
#include "harness/runner/under_command.h"

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

// "gilsan SUBCOMMAND ARGS...", as a report names the command that made it.
std::string joined_command(std::string_view subcommand, std::span<const std::string_view> arguments) {
  std::string text = "gilsan " + std::string(subcommand);
  for (std::string_view argument : arguments) text += " " + std::string(argument);
  return text;
}

// A built-in implementation or an adapter of one's own (package.module:Class).
std::string checked_implementation(const std::string& name) {
  if (!is_implementation_name(name)) {
    std::string builtin;
    for (std::string_view known : kBuiltinImplementations) builtin += (builtin.empty() ? "" : ", ") + std::string(known);
    throw UsageError("--impl: unknown implementation '" + name + "' (" + builtin + ", or package.module:Class)");
  }
  return name;
}

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

// Parsed here, in the parent: a bad profile is one line before anything runs, not an error in every child.
std::string checked_profile(const std::string& value) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(value, error)) throw UsageError("--profile " + value + ": no such file");
  try {
    load_driver_profile(value);
  } catch (const std::exception& bad) {
    throw UsageError("--profile " + std::string(bad.what()));
  }
  return std::filesystem::absolute(value, error).string();
}

// An output file, proven writable now (output_path.h).
std::string checked_output(std::string_view option, const std::string& value) {
  if (const std::optional<std::string> why = why_unwritable(value)) throw UsageError(std::string(option) + " " + value + ": " + *why);
  return value;
}

// The options `run` and `suite` share. Returns false when `option` is none of them.
bool take_run_option(ArgumentCursor& cursor, std::string_view option, RunSettings& settings) {
  if (option == "--driver") {
    settings.driver_request = checked_driver(cursor.value_of(option));
  } else if (option == "--profile") {
    settings.profile_path = checked_profile(cursor.value_of(option));
  } else if (option == "--timeout") {
    settings.timeout_override_seconds = checked_timeout(cursor.value_of(option));
  } else if (option == "--max-rss") {
    const std::string value = cursor.value_of(option);
    settings.max_resident_bytes = parse_byte_size(value);
    if (!settings.max_resident_bytes)
      throw UsageError("--max-rss must be a size such as 512M or 2G (K, M, G: KiB, MiB, GiB), not '" + value + "'");
  } else if (option == "--quiet-ms") {
    settings.watchdog.quiet = checked_quiet(cursor.value_of(option));
  } else if (option == "--sanitize") {
    const std::string value = cursor.value_of(option);
    if (value != "on" && value != "off") throw UsageError("--sanitize must be on or off, not '" + value + "'");
    settings.sanitize = value == "on";
  } else if (option == "--under") {
    try {
      settings.under = parse_under_command(cursor.value_of(option));
    } catch (const std::invalid_argument& error) {
      throw UsageError(error.what());
    }
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
    } else if (argument == "--impl") {
      command.settings.implementation = checked_implementation(cursor.value_of(argument));
    } else if (take_run_option(cursor, argument, command.settings)) {
    } else if (argument == "--report") {
      const std::string format = cursor.value_of(argument);
      if (format != "text" && format != "json") throw UsageError("--report must be text or json, not '" + format + "'");
      command.format = format == "json" ? ReportFormat::Json : ReportFormat::Text;
    } else if (argument == "--sarif") {
      command.sarif_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "-o" || argument == "--output") {
      command.output_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--dot") {
      command.settings.watchdog.dot_path = checked_output(argument, cursor.value_of(argument));
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

// "a,b,c" as a list; empty items are an error.
std::vector<std::string> name_list(const std::string& value, std::string_view option) {
  std::vector<std::string> names;
  std::string_view rest = value;
  while (true) {
    const auto comma = rest.find(',');
    const std::string name(rest.substr(0, comma));
    if (name.empty()) throw UsageError(std::string(option) + " takes a comma list of names, not '" + value + "'");
    names.push_back(name);
    if (comma == std::string_view::npos) return names;
    rest.remove_prefix(comma + 1);
  }
}

unsigned checked_jobs(const std::string& value) {
  unsigned jobs = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), jobs);
  if (error != std::errc() || end != value.data() + value.size() || jobs < 1 || jobs > 256)
    throw UsageError("--jobs must be a whole number from 1 to 256, not '" + value + "'");
  return jobs;
}

// "i/n": the i-th of n shards, 1 <= i <= n.
std::pair<unsigned, unsigned> checked_shard(const std::string& value) {
  const auto slash = value.find('/');
  unsigned index = 0, count = 0;
  bool ok = slash != std::string::npos;
  if (ok) {
    const auto [index_end, index_error] = std::from_chars(value.data(), value.data() + slash, index);
    const auto [count_end, count_error] = std::from_chars(value.data() + slash + 1, value.data() + value.size(), count);
    ok = index_error == std::errc() && index_end == value.data() + slash && count_error == std::errc() &&
         count_end == value.data() + value.size() && count >= 1 && index >= 1 && index <= count;
  }
  if (!ok) throw UsageError("--shard must be i/n with 1 <= i <= n (e.g. 2/4), not '" + value + "'");
  return {index, count};
}

SuiteCommand parse_suite(std::span<const std::string_view> arguments) {
  SuiteCommand command;
  command.settings.command_line = joined_command("suite", arguments);
  ArgumentCursor cursor("suite", arguments);
  while (const std::optional<std::string_view> next = cursor.next()) {
    const std::string_view argument = *next;
    if (!cursor.is_option(argument)) {
      command.settings.roots.emplace_back(argument);
    } else if (take_run_option(cursor, argument, command.settings.run)) {
    } else if (argument == "--junit") {
      command.settings.junit_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--sarif") {
      command.settings.sarif_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--json") {
      command.settings.json_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--markdown") {
      command.settings.markdown_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--impl") {
      command.settings.implementations = name_list(cursor.value_of(argument), argument);
      for (const std::string& name : command.settings.implementations) checked_implementation(name);
    } else if (argument == "--jobs") {
      command.settings.jobs = checked_jobs(cursor.value_of(argument));
    } else if (argument == "--shard") {
      std::tie(command.settings.shard_index, command.settings.shard_count) = checked_shard(cursor.value_of(argument));
    } else if (argument == "--filter") {
      command.settings.filter = cursor.value_of(argument);
    } else {
      cursor.unknown(argument);
    }
  }
  if (command.settings.roots.empty()) command.settings.roots.push_back(default_scenario_folder());
  return command;
}

MergeCommand parse_merge(std::span<const std::string_view> arguments) {
  MergeCommand command;
  command.command_line = joined_command("merge", arguments);
  ArgumentCursor cursor("merge", arguments);
  while (const std::optional<std::string_view> next = cursor.next()) {
    const std::string_view argument = *next;
    if (!cursor.is_option(argument)) {
      command.inputs.emplace_back(argument);
    } else if (argument == "--json") {
      command.json_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--junit") {
      command.junit_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--sarif") {
      command.sarif_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--markdown") {
      command.markdown_path = checked_output(argument, cursor.value_of(argument));
    } else if (argument == "--compare") {
      command.compare_paths.push_back(cursor.value_of(argument));
    } else {
      cursor.unknown(argument);
    }
  }
  if (command.inputs.empty()) throw UsageError("gilsan merge: which results? (gilsan merge A.json B.json ...)");
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
    else if (argument == "--impl")
      child.implementation = cursor.value_of(argument);
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
  return installed_or(installed_data_folder() + "/scenarios", GILSAN_SOURCE_DIR "/scenarios");
}

Command parse_command_line(std::span<const std::string_view> arguments) {
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
  for (std::string_view argument : rest) {
    if (argument == "--") break;  // a program's own --help is the program's
    if (argument == "--help" || argument == "-h") return HelpCommand{command_help(command) ? std::string(command) : ""};
  }
  if (command == "run") return parse_run(rest);
  if (command == "suite") return parse_suite(rest);
  if (command == "merge") return parse_merge(rest);
  if (command == "explain") {
    if (rest.size() > 1) throw UsageError("gilsan explain takes one name, a deadlock class or a checker");
    return ExplainCommand{rest.empty() ? std::string() : std::string(rest.front())};
  }
  if (command == kScenarioChildCommand) return parse_child(rest);
  if (command == kProgramChildCommand) return parse_program_child(rest);
  throw UsageError("unknown command '" + std::string(command) + "'");
}

}  // namespace gilsan
