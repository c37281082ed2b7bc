#include "harness/command/command_help.h"

#include <gtest/gtest.h>

#include "harness/command/command_line.h"

namespace gilsan {
namespace {

TEST(CommandHelp, EachCommandGetsItsUsageOptionsExamplesAndExitCodes) {
  for (const char* command : {"run", "suite", "merge", "explain"}) {
    const std::optional<std::string> help = command_help(command);
    ASSERT_TRUE(help) << command;
    EXPECT_TRUE(help->starts_with("usage:\n  gilsan " + std::string(command))) << *help;
    EXPECT_NE(help->find("\n" + std::string(command) + " "), std::string::npos) << *help;  // what it does
    EXPECT_NE(help->find("\nexamples:\n"), std::string::npos) << *help;
    EXPECT_NE(help->find("\nexit codes:"), std::string::npos) << *help;
  }
}

TEST(CommandHelp, OnlyTheOptionsTheCommandTakes) {
  const std::string suite = command_help("suite").value();
  EXPECT_NE(suite.find("\n  --shard "), std::string::npos);
  EXPECT_NE(suite.find("\n  --under "), std::string::npos);
  EXPECT_EQ(suite.find("\n  --expect "), std::string::npos);
  EXPECT_EQ(suite.find("\n  --compare "), std::string::npos);
  const std::string merge = command_help("merge").value();
  EXPECT_NE(merge.find("\n  --compare "), std::string::npos);
  EXPECT_EQ(merge.find("\n  --driver "), std::string::npos);
  EXPECT_EQ(merge.find("\n  gilsan suite"), std::string::npos);
}

TEST(CommandHelp, NoneForWhatIsNotACommand) {
  EXPECT_FALSE(command_help("bogus"));
  EXPECT_FALSE(command_help(""));
  EXPECT_FALSE(command_help("ru"));
}

}  // namespace
}  // namespace gilsan
