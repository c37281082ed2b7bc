#include "harness/cli/option_table.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace gilsan::cli {

struct OptionTable::Parser {
  CLI::App app;
  std::map<std::string, std::string> needs;  // by CLI11's name of the option ("--output" for "-o,--output")
};

OptionTable::OptionTable() : parser_(std::make_unique<Parser>()) {
  CLI::App& app = parser_->app;
  app.set_help_flag();  // the commands' own help texts (option_table.h)
  // Unknown options are left over instead of thrown as one error listing them all, so that parse()
  // names the first one the way every gilsan command says it.
  app.allow_extras();
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

OptionTable::~OptionTable() = default;

void OptionTable::value(const std::string& names, Store store, const std::string& needs) {
  const CLI::Option* option = parser_->app.add_option_function<std::string>(names, std::move(store));
  parser_->needs[option->get_name()] = needs;
}

void OptionTable::repeatable(const std::string& names, Store store, const std::string& needs) {
  CLI::Option* option = parser_->app.add_option_function<std::vector<std::string>>(
      names, [store = std::move(store)](const std::vector<std::string>& values) {
        for (const std::string& value : values) store(value);
      });
  // One word per time it is given (the words after it stay operands), and every time kept.
  option->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  parser_->needs[option->get_name()] = needs;
}

void OptionTable::pair(const std::string& names, std::function<void(const std::string&, const std::string&)> store,
                       const std::string& needs) {
  const CLI::Option* option = parser_->app.add_option_function<std::pair<std::string, std::string>>(
      names, [store = std::move(store)](const std::pair<std::string, std::string>& values) {
        store(values.first, values.second);
      });
  parser_->needs[option->get_name()] = needs;
}

void OptionTable::flag(const std::string& names, std::function<void()> store) {
  parser_->app.add_flag_callback(names, std::move(store));
}

void OptionTable::operands(std::vector<std::string>& into) { parser_->app.add_option("operands", into); }

namespace {

// CLI11 2.1 reads "--name=" as "--name" with the next word as its value; gilsan reads it as an empty
// value ("--under=" is an empty --under, refused as such). So it is split in two words here, up to "--".
std::vector<std::string> with_empty_values_split(const std::vector<std::string>& arguments) {
  std::vector<std::string> words;
  bool operands_only = false;
  for (const std::string& argument : arguments) {
    operands_only = operands_only || argument == "--";
    if (!operands_only && argument.size() > 3 && argument.starts_with("--") && argument.ends_with('=')) {
      words.push_back(argument.substr(0, argument.size() - 1));
      words.emplace_back();
    } else {
      words.push_back(argument);
    }
  }
  return words;
}

}  // namespace

std::optional<std::string> OptionTable::parse(const std::vector<std::string>& arguments) {
  std::vector<std::string> words = with_empty_values_split(arguments);
  std::reverse(words.begin(), words.end());  // CLI11 takes its words last first
  try {
    parser_->app.parse(words);
  } catch (const CLI::ArgumentMismatch& error) {
    // "--driver: 1 required TEXT missing": CLI11 names the option by its long name; say it as typed.
    const std::string what = error.what();
    const CLI::Option* option = parser_->app.get_option_no_throw(what.substr(0, what.find(':')));
    if (option == nullptr || !parser_->needs.contains(option->get_name())) return what;
    const auto typed = std::find_if(arguments.rbegin(), arguments.rend(),
                                    [option](const std::string& argument) { return option->check_name(argument); });
    return (typed != arguments.rend() ? *typed : option->get_name()) + " needs " + parser_->needs.at(option->get_name());
  } catch (const CLI::ParseError& error) {
    return std::string(error.what());
  }
  for (const std::string& left : parser_->app.remaining()) {
    if (left == "--") continue;  // with allow_extras, CLI11 leaves the separator over
    if (left.size() > 1 && left.starts_with('-')) return "unknown option '" + left.substr(0, left.find('=')) + "'";
    return "unexpected argument '" + left + "'";
  }
  return std::nullopt;
}

}  // namespace gilsan::cli
