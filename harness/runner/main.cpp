// gilsan: parses the command line and hands over to the command; errors become one line and an
// exit code (see exit_codes.h).
#include <iostream>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/runner/command_line.h"
#include "harness/runner/commands.h"
#include "harness/runner/exit_codes.h"
#include "harness/runner/scenario_header.h"

int main(int argc, char** argv) {
  using namespace gilsan;
  const std::vector<std::string_view> arguments(argv + 1, argv + argc);
  try {
    const Command command = parse_command_line(arguments);
    if (const auto* child = std::get_if<ChildArguments>(&command)) run_scenario_child(*child);
    if (const auto* run = std::get_if<RunCommand>(&command)) return run_command(*run);
    if (const auto* suite = std::get_if<SuiteCommand>(&command)) return suite_command(*suite);
    std::cout << usage_text();
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
