// The rules every gilsan command's options follow (harness/cli/option_table.h), on a table of each
// kind of option: how values are spelled, repeated, missing, and what is not an option.
#include "harness/cli/option_table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gilsan::cli {
namespace {

struct Parsed {
  std::vector<std::string> drivers;  // every value --driver stored, in order
  std::optional<std::string> output;
  std::vector<std::string> compares;
  std::optional<std::pair<std::string, std::string>> diff;
  int quick = 0;
  std::vector<std::string> operands;
  std::optional<std::string> problem;
};

Parsed parse(const std::vector<std::string>& arguments, bool with_operands = true) {
  Parsed parsed;
  OptionTable table;
  table.value("--driver", [&parsed](const std::string& value) { parsed.drivers.push_back(value); });
  table.value("-o,--output", [&parsed](const std::string& value) { parsed.output = value; }, "a file name");
  table.repeatable("--compare", [&parsed](const std::string& value) { parsed.compares.push_back(value); });
  table.pair("--diff", [&parsed](const std::string& a, const std::string& b) { parsed.diff.emplace(a, b); },
             "two profile files");
  table.flag("--quick", [&parsed] { ++parsed.quick; });
  table.value("--strict", [](const std::string& value) {
    if (value != "yes") throw std::invalid_argument("--strict must be yes, not '" + value + "'");
  });
  if (with_operands) table.operands(parsed.operands);
  parsed.problem = table.parse(arguments);
  return parsed;
}

TEST(OptionTable, AValueAfterASpaceOrAnEqualsSign) {
  EXPECT_EQ(parse({"--driver", "sim"}).drivers, std::vector<std::string>{"sim"});
  EXPECT_EQ(parse({"--driver=sim"}).drivers, std::vector<std::string>{"sim"});
  EXPECT_EQ(parse({"-o", "out.json"}).output, "out.json");
  EXPECT_EQ(parse({"--output=out.json"}).output, "out.json");
  // A value is the next word, however it looks: "--driver -x" is the value "-x", as before CLI11.
  EXPECT_EQ(parse({"--driver", "-x"}).drivers, std::vector<std::string>{"-x"});
}

TEST(OptionTable, AnEqualsSignWithNothingAfterItIsAnEmptyValue) {
  const Parsed parsed = parse({"--driver=", "a.py"});
  EXPECT_EQ(parsed.drivers, std::vector<std::string>{""});
  EXPECT_EQ(parsed.operands, std::vector<std::string>{"a.py"});
  EXPECT_FALSE(parsed.problem);
}

TEST(OptionTable, GivenTwiceTheLastValueCountsAndOnlyItIsChecked) {
  EXPECT_EQ(parse({"--driver", "real", "--driver", "sim"}).drivers, std::vector<std::string>{"sim"});
  EXPECT_NO_THROW(parse({"--strict", "no", "--strict", "yes"}));
}

TEST(OptionTable, ARepeatableOptionKeepsEachValueAndTakesOneWordEachTime) {
  const Parsed parsed = parse({"--compare", "a.json", "x.json", "--compare=b.json"});
  EXPECT_EQ(parsed.compares, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(parsed.operands, std::vector<std::string>{"x.json"});
}

TEST(OptionTable, APairTakesTwoWords) {
  const Parsed parsed = parse({"--diff", "a.json", "b.json", "c.json"});
  ASSERT_TRUE(parsed.diff);
  EXPECT_EQ(parsed.diff->first, "a.json");
  EXPECT_EQ(parsed.diff->second, "b.json");
  EXPECT_EQ(parsed.operands, std::vector<std::string>{"c.json"});
  EXPECT_EQ(parse({"--diff", "a.json"}).problem, "--diff needs two profile files");
}

TEST(OptionTable, AMissingValueIsOneLineNamingTheOptionAsTyped) {
  EXPECT_EQ(parse({"a.py", "--driver"}).problem, "--driver needs a value");
  EXPECT_EQ(parse({"-o"}).problem, "-o needs a file name");
  EXPECT_EQ(parse({"--output"}).problem, "--output needs a file name");
  EXPECT_EQ(parse({"--compare"}).problem, "--compare needs a value");
}

TEST(OptionTable, AnUnknownOptionIsNamedWithoutItsValue) {
  EXPECT_EQ(parse({"a.py", "--fast"}).problem, "unknown option '--fast'");
  EXPECT_EQ(parse({"--fast=3", "--driver", "sim"}).problem, "unknown option '--fast'");
  EXPECT_EQ(parse({"-x"}).problem, "unknown option '-x'");
  // No prefix matching: an option is spelled in full.
  EXPECT_EQ(parse({"--drive", "sim"}).problem, "unknown option '--drive'");
  EXPECT_EQ(parse({"--help"}).problem, "unknown option '--help'");  // CLI11's own help is off
}

TEST(OptionTable, AnOperandWhereNoneIsTakenIsAProblem) {
  EXPECT_EQ(parse({"--quick", "stray"}, false).problem, "unexpected argument 'stray'");
  EXPECT_EQ(parse({"--", "stray"}, false).problem, "unexpected argument 'stray'");
  EXPECT_FALSE(parse({"--quick"}, false).problem);
}

TEST(OptionTable, AfterADoubleDashEverythingIsAnOperand) {
  const Parsed parsed = parse({"a", "--", "--driver", "x", "-", "--fast="});
  EXPECT_TRUE(parsed.drivers.empty());
  EXPECT_EQ(parsed.operands, (std::vector<std::string>{"a", "--driver", "x", "-", "--fast="}));
  EXPECT_FALSE(parsed.problem);
}

TEST(OptionTable, AFlagTakesNoValue) {
  const Parsed parsed = parse({"--quick", "a.py"});
  EXPECT_EQ(parsed.quick, 1);
  EXPECT_EQ(parsed.operands, std::vector<std::string>{"a.py"});
}

TEST(OptionTable, AValuesOwnCheckThrowsItsOwnError) {
  try {
    parse({"--strict", "no"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "--strict must be yes, not 'no'");
  }
}

TEST(OptionTable, NothingGivenIsNoProblem) {
  const Parsed parsed = parse({});
  EXPECT_FALSE(parsed.problem);
  EXPECT_TRUE(parsed.operands.empty());
  EXPECT_FALSE(parsed.output);
}

}  // namespace
}  // namespace gilsan::cli
