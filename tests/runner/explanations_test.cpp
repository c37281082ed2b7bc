// `gilsan explain`: one page of docs/explain per deadlock class and per checker, no other, each in the
// shape the command and the docs rely on.
#include "harness/reports/explanations.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/scenario/outcome.h"

namespace gilsan {
namespace {

TEST(Explanations, EveryClassAndCheckerHasItsPageAndNothingElseDoes) {
  std::set<std::string> wanted;
  for (std::string_view name : deadlock_classes()) wanted.emplace(name);
  for (std::string_view name : checker_names()) wanted.emplace(name);
  std::set<std::string> pages;
  for (const Explanation& page : explanations()) pages.emplace(page.name);
  EXPECT_EQ(pages, wanted) << "add or remove docs/explain/NAME.md with the class or checker";
}

TEST(Explanations, EachPageNamesItselfAndHasTheThreeSections) {
  for (const Explanation& page : explanations()) {
    const std::string text(page.text);
    EXPECT_TRUE(text.starts_with("# " + std::string(page.name) + " (")) << page.name;
    for (const char* section : {"\n## What it is\n", "\n## A minimal example\n", "\n## How to fix it\n"})
      EXPECT_NE(text.find(section), std::string::npos) << page.name << " lacks" << section;
    EXPECT_TRUE(text.ends_with("\n")) << page.name;
  }
}

}  // namespace
}  // namespace gilsan
