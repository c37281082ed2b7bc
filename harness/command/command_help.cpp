#include "harness/command/command_help.h"

#include <set>
#include <vector>

#include "harness/command/command_line.h"
#include "harness/text/lines.h"

namespace gilsan {
namespace {

using text::lines_of;

bool indented(std::string_view line, std::size_t at_least) {
  return line.size() > at_least && line.find_first_not_of(' ') >= at_least;
}

// "  gilsan COMMAND ..." or "  gilsan COMMAND": where one command's usage (or example) starts.
bool names_command(std::string_view line, std::string_view command) {
  const std::string start = "  gilsan " + std::string(command);
  return line == start || line.starts_with(start + " ");
}

// The options ("--name", "-o") a usage line mentions.
void collect_options(std::string_view line, std::set<std::string>& options) {
  for (std::size_t at = line.find('['); at != std::string_view::npos; at = line.find('[', at + 1)) {
    const std::string_view rest = line.substr(at + 1);
    if (!rest.starts_with('-')) continue;
    options.emplace(rest.substr(0, rest.find_first_of(" ]")));
  }
}

}  // namespace

std::optional<std::string> command_help(std::string_view command) {
  const std::string text = usage_text();
  const std::vector<std::string_view> lines = lines_of(text);
  std::string usage, about, options, examples, exit_codes;
  std::set<std::string> named;
  enum class Part { Usage, About, Options, Examples, ExitCodes } part = Part::Usage;
  bool taking = false;        // the current entry of the current part is the command's
  std::string pending;        // example comment lines waiting for the command line they describe
  for (const std::string_view line : lines) {
    if (line == "usage:") continue;
    if (line.starts_with("examples:")) {
      part = Part::Examples;
      continue;
    }
    if (line.starts_with("exit codes:")) part = Part::ExitCodes;
    if (part == Part::Usage && !line.empty() && !line.starts_with(' ')) part = Part::About;
    if (part == Part::About && line.starts_with("  -")) part = Part::Options;
    switch (part) {
      case Part::Usage:
        if (line.starts_with("  gilsan ")) taking = names_command(line, command);
        if (taking) {
          usage += std::string(line) + "\n";
          collect_options(line, named);
        }
        break;
      case Part::About:
        if (!line.empty() && !line.starts_with(' ')) taking = line.starts_with(std::string(command) + " ");
        if (taking && !line.empty()) about += std::string(line) + "\n";
        break;
      case Part::Options:
        if (line.starts_with("  -")) {
          const std::string_view name = line.substr(2, line.find(' ', 2) - 2);
          taking = named.contains(std::string(name));
        } else if (!indented(line, 3)) {
          taking = false;
        }
        if (taking) options += std::string(line) + "\n";
        break;
      case Part::Examples:
        if (line.starts_with("  #")) {
          pending += std::string(line) + "\n";
        } else if (line.starts_with("  gilsan ")) {
          if (names_command(line, command)) examples += pending + std::string(line) + "\n";
          pending.clear();
        }
        break;
      case Part::ExitCodes: exit_codes += std::string(line) + "\n"; break;
    }
  }
  if (usage.empty()) return std::nullopt;
  std::string help = "usage:\n" + usage + "\n" + about;
  if (!options.empty()) help += "\n" + options;
  if (!examples.empty()) help += "\nexamples:\n" + examples;
  return help + "\n" + exit_codes;
}

}  // namespace gilsan
