// gilsan: parses the command line and hands over to the command; errors become one line and an
// exit code (see exit_codes.h).
#include <iostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/child/program_child.h"
#include "harness/child/scenario_child.h"
#include "harness/command/command_help.h"
#include "harness/command/command_line.h"
#include "harness/command/commands.h"
#include "harness/command/exit_codes.h"
#include "harness/scenario/scenario_header.h"
#ifdef GILSAN_WITH_PROBE
#include "harness/probe/probe_command.h"
#endif
#ifdef GILSAN_WITH_BENCH
#include "harness/bench/bench_command.h"
#endif

int main(int argc, char** argv) {
  using namespace gilsan;
#ifdef GILSAN_WITH_PROBE
  // The probe parses its own flags and re-executes itself with argv's tail, so it gets that tail as is.
  if (argc >= 2 && std::string_view(argv[1]) == "probe") {
    return probe::run_probe_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  // The probe's help is the probe's own.
  if (argc == 3 && std::string_view(argv[1]) == "help" && std::string_view(argv[2]) == "probe")
    return probe::run_probe_command({"--help"});
#endif
#ifdef GILSAN_WITH_BENCH
  if (argc >= 2 && std::string_view(argv[1]) == "bench") {
    return bench::run_bench_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  // As the probe's: the bench's help is its own, with its options.
  if (argc == 3 && std::string_view(argv[1]) == "help" && std::string_view(argv[2]) == "bench")
    return bench::run_bench_command({"--help"});
#endif
  const std::vector<std::string_view> arguments(argv + 1, argv + argc);
  try {
    const Command command = parse_command_line(arguments);
    if (const auto* child = std::get_if<ChildArguments>(&command)) run_scenario_child(*child);
    if (const auto* program = std::get_if<ProgramArguments>(&command)) run_program_child(*program);
    if (const auto* run = std::get_if<RunCommand>(&command)) return run_command(*run);
    if (const auto* suite = std::get_if<SuiteCommand>(&command)) return suite_command(*suite);
    if (const auto* merge = std::get_if<MergeCommand>(&command)) return merge_command(*merge);
    if (const auto* explain = std::get_if<ExplainCommand>(&command)) return explain_command(*explain);
    const auto& help = std::get<HelpCommand>(command);
    std::cout << (help.command.empty() ? usage_text() : command_help(help.command).value_or(usage_text()));
    return kExitAllMatched;
  } catch (const UsageError& error) {
    std::cerr << "gilsan: " << error.what() << " (see gilsan --help)\n";
    return kExitUsage;
  } catch (const ScenarioInputError& error) {
    std::cerr << error.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "gilsan: internal error: " << error.what() << "\n";
    return kExitInternal;
  }
}
