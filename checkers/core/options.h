// Options, from a GILSAN_OPTIONS-style string: `key=value` items separated by ':'.
//
//   halt_on_error=1:exitcode=66:report_path=/tmp/r.json:suppressions=/x/supp.txt:gil_held_blocking_call=0
//
// Keys: halt_on_error (0|1), exitcode (0..255), report_path (JSON report file), suppressions (a
// suppression file), and one 0|1 switch per checker named like the checker with '_' for '-'.
// Paths cannot contain ':'. Empty items are ignored, so a trailing ':' is fine.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checkers/core/checker.h"

namespace gilsan::checkers {

// "GILSAN_OPTIONS: item 2 'halt_on_error=yes': expected 0 or 1".
class OptionsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  bool halt_on_error = false;  // stop the process after the first unsuppressed report
  int exitcode = 66;           // the exit code when there were unsuppressed reports
  std::string report_path;     // JSON report file; empty: none
  std::string suppressions;    // suppression file; empty: none
  // Print at exit how long the sanitizer's own code took per event (libgilsan_inject.so: its CUPTI
  // callbacks and its host-function wrapper), to tell its cost from CUPTI's and the driver's.
  bool stats = false;
  // Every checker starts on.
  std::array<bool, std::size(kAllCheckers)> enabled = all_on();

  bool is_enabled(Checker checker) const { return enabled[static_cast<std::size_t>(checker)]; }
  void set_enabled(Checker checker, bool on) { enabled[static_cast<std::size_t>(checker)] = on; }

 private:
  static constexpr std::array<bool, std::size(kAllCheckers)> all_on() {
    std::array<bool, std::size(kAllCheckers)> on{};
    on.fill(true);
    return on;
  }
};

// `text` overrides `defaults` (e.g. the injected mode starts with gil_held_blocking_call off).
// `source` names where the text came from in error messages. Throws OptionsError.
Options parse_options(std::string_view text, const Options& defaults = Options(),
                      std::string_view source = "GILSAN_OPTIONS");

}  // namespace gilsan::checkers
