#include "harness/runner/under_command.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gilsan {
namespace {

using Words = std::vector<std::string>;

TEST(SplitCommandWords, SplitsOnBlanksAndKeepsQuotedText) {
  EXPECT_EQ(split_command_words("valgrind --tool=helgrind"), (Words{"valgrind", "--tool=helgrind"}));
  EXPECT_EQ(split_command_words("  a \t b\n"), (Words{"a", "b"}));
  EXPECT_EQ(split_command_words("tool --log='my file.txt'"), (Words{"tool", "--log=my file.txt"}));
  EXPECT_EQ(split_command_words(R"(tool "a \"b\" \\ \x" c)"), (Words{"tool", R"(a "b" \ \x)", "c"}));
  EXPECT_EQ(split_command_words(R"(a\ b '' "")"), (Words{"a b", "", ""}));
  // No shell: what a shell would expand stays as written.
  EXPECT_EQ(split_command_words("echo $HOME *.py ; ls"), (Words{"echo", "$HOME", "*.py", ";", "ls"}));
  EXPECT_TRUE(split_command_words("   ").empty());
}

TEST(SplitCommandWords, RejectsWhatIsUnfinished) {
  EXPECT_THROW(split_command_words("tool 'open"), std::invalid_argument);
  EXPECT_THROW(split_command_words("tool \"open"), std::invalid_argument);
  EXPECT_THROW(split_command_words("tool \\"), std::invalid_argument);
}

TEST(ParseUnderCommand, MakesTheProgramAPathAndSaysWhyItCannot) {
  const Words words = parse_under_command("env A=1");
  ASSERT_EQ(words.size(), 2u);
  EXPECT_TRUE(words[0].ends_with("/env")) << words[0];
  EXPECT_EQ(words[1], "A=1");
  auto error = [](const char* text) {
    try {
      parse_under_command(text);
    } catch (const std::invalid_argument& failure) {
      return std::string(failure.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(""), "--under needs a command, such as --under 'valgrind --tool=helgrind'");
  EXPECT_EQ(error("no-such-tool-gilsan -x"), "--under: no-such-tool-gilsan: not found on PATH");
  EXPECT_EQ(error("/nonexistent-gilsan/tool"), "--under: /nonexistent-gilsan/tool: No such file or directory");
  EXPECT_EQ(error("tool 'x"), "--under 'tool 'x': unterminated ' quote");
}

}  // namespace
}  // namespace gilsan
