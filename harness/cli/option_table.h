// The options one gilsan command takes (run, suite, merge, explain, probe, bench, the hidden child
// modes), declared as a table and parsed by CLI11. Every command gets the same rules:
//   "--name value" and "--name=value" (and "-o FILE") mean the same; "--name=" is an empty value;
//   given twice, an option's last value counts (repeatable() keeps them all);
//   everything after "--" is an operand, however it looks;
//   a problem (an unknown option, a missing value) is one line naming it, and a value's own check
//   (the store function) throws its own error, which passes through untouched.
// The help texts stay gilsan's own (harness/command/usage_text.cpp, the probe's and the bench's
// usage): they carry examples and the exit codes, and `gilsan help COMMAND` is cut out of them, so
// CLI11's help flag and formatter are switched off. CLI11 lives only in option_table.cpp, so the
// commands' files compile without its headers.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gilsan::cli {

class OptionTable {
 public:
  using Store = std::function<void(const std::string& value)>;

  OptionTable();
  ~OptionTable();
  OptionTable(const OptionTable&) = delete;
  OptionTable& operator=(const OptionTable&) = delete;

  // An option with one value. `names` is "--driver" or "-o,--output". `needs` ends the line a missing
  // value gives: "--driver needs a value".
  void value(const std::string& names, Store store, const std::string& needs = "a value");
  // The same, but each time it is given its value is stored, in order (merge --compare A --compare B).
  void repeatable(const std::string& names, Store store, const std::string& needs = "a value");
  // An option with two values (probe --diff A B).
  void pair(const std::string& names, std::function<void(const std::string&, const std::string&)> store,
            const std::string& needs);
  // An option without a value (--quick, --help).
  void flag(const std::string& names, std::function<void()> store);
  // The arguments that are no option, in order. Without operands(), an operand is a problem.
  void operands(std::vector<std::string>& into);

  // Parses `arguments` (the words after the command name) and calls the store functions. Returns the
  // problem as one line ("unknown option '--fast'", "--driver needs a value", "unexpected argument
  // 'x'"), or nullopt when there is none.
  std::optional<std::string> parse(const std::vector<std::string>& arguments);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace gilsan::cli
