#include <iostream>
#include <string>

#include "harness/command/exit_codes.h"
#include "harness/reports/explanations.h"
#include "harness/text/printable.h"

namespace gilsan {

int explain_command(const ExplainCommand& command) {
  const std::vector<Explanation>& pages = explanations();
  if (command.name.empty()) {
    std::cout << "gilsan explain NAME: a deadlock class (deadlock:NAME) or a sanitizer checker (report:NAME)\n";
    for (const Explanation& page : pages) {
      // The first line is "# NAME (what it is)".
      const std::string_view title = page.text.substr(0, page.text.find('\n'));
      std::cout << "  " << (title.starts_with("# ") ? title.substr(2) : page.name) << "\n";
    }
    return kExitAllMatched;
  }
  // "deadlock:X" and "report:X", as outcomes print them, are accepted too.
  std::string_view name = command.name;
  for (std::string_view prefix : {"deadlock:", "report:"})
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  for (const Explanation& page : pages) {
    if (page.name == name) {
      std::cout << page.text;
      return kExitAllMatched;
    }
  }
  std::string known;
  for (const Explanation& page : pages) known += (known.empty() ? "" : ", ") + std::string(page.name);
  std::cerr << "gilsan explain: no class or checker is named '" << printable(command.name) << "' (known: " << known
            << ")\n";
  return kExitUsage;
}

}  // namespace gilsan
