// `gilsan explain CLASS|CHECKER`: what a deadlock class or a sanitizer checker is, a minimal example,
// and how to fix it. The texts are docs/explain/NAME.md, compiled in at build time
// (embed_explanations.cmake): the command and the docs are one source.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gilsan {

struct Explanation {
  std::string_view name;  // a deadlock class or a checker, as reports and expectations spell it
  std::string_view text;  // Markdown
};

// Every page of docs/explain, by name.
const std::vector<Explanation>& explanations();

struct ExplainCommand {
  std::string name;  // empty: list the names
};

// Prints the page, or the list of names; an unknown name is one line on stderr and exit code 2.
int explain_command(const ExplainCommand& command);

}  // namespace gilsan
