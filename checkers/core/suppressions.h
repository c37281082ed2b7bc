// Suppressions: a file of `checker:pattern` lines, like the sanitizers' suppression files.
//
//   # comments and blank lines are ignored
//   lock-order-cycle:*third_party/legacy.py*
//   cuda-call-in-host-function:cuStreamQuery
//
// The pattern is a glob (`*` any run of characters, `?` one character, `\` quotes the next one)
// matched against the whole of each of a report's candidate strings: the driver entry points, the
// host functions' implementations ("modules") and callables, the lock names, and every stack frame.
// One match suppresses the report. Suppressions that never matched are listed at the end of the
// run.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/core/checker.h"
#include "checkers/core/report.h"

namespace gilsan::checkers {

// A suppression file that cannot be read or has a malformed line: "FILE:LINE: message".
class SuppressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool glob_match(std::string_view pattern, std::string_view text);

// The strings of a report that suppression patterns are matched against.
std::vector<std::string> suppression_candidates(const Report& report);

class Suppressions {
 public:
  struct Rule {
    Checker checker;
    std::string pattern;
    std::string file;
    int line = 0;
    std::size_t uses = 0;
  };

  Suppressions() = default;
  static Suppressions parse(std::string_view text, std::string_view file_name);
  static Suppressions load(const std::string& path);

  // The first rule that suppresses the report (and counts the use), or nullptr.
  const Rule* match(const Report& report);
  std::vector<UnusedSuppression> unused() const;
  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::vector<Rule> rules_;
};

}  // namespace gilsan::checkers
