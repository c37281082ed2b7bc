// The recipe list covers the profile: every profiled entry point has a recipe, every recipe names a
// profiled entry point, ids are unique, and at least 40 entry points are exercised meaningfully.
#include "harness/probe/call_recipe.h"

#include <gtest/gtest.h>

#include <set>

#include "harness/profile/driver_profile.h"

namespace gilsan::probe {
namespace {

TEST(CallRecipes, CoverEveryProfiledEntryPointAndNothingElse) {
  std::set<std::string> profiled(profiled_entry_points().begin(), profiled_entry_points().end());
  std::set<std::string> covered;
  std::set<std::string> ids;
  for (const CallRecipe& recipe : call_recipes()) {
    EXPECT_TRUE(ids.insert(recipe.id).second) << "duplicate recipe id " << recipe.id;
    EXPECT_TRUE(profiled.contains(recipe.entry_point)) << recipe.id << " exercises an unprofiled entry point";
    EXPECT_TRUE(static_cast<bool>(recipe.call)) << recipe.id;
    EXPECT_FALSE(recipe.description.empty()) << recipe.id;
    covered.insert(recipe.entry_point);
  }
  for (const std::string& entry : profiled) EXPECT_TRUE(covered.contains(entry)) << "no recipe for " << entry;
}

TEST(CallRecipes, TheFirstRecipeOfAnEntryPointIsItsMainOneAndVariantsFollowIt) {
  std::set<std::string> seen;
  for (const CallRecipe& recipe : call_recipes()) {
    bool variant = recipe.id.find('#') != std::string::npos;
    if (variant) {
      EXPECT_TRUE(seen.contains(recipe.entry_point)) << recipe.id << " comes before its main recipe";
    } else {
      EXPECT_EQ(recipe.id, recipe.entry_point);
    }
    seen.insert(recipe.entry_point);
  }
}

TEST(CallRecipes, AtLeastFortyEntryPointsAreMeaningfullyExercised) {
  std::set<std::string> meaningful;
  for (const CallRecipe& recipe : call_recipes())
    if (recipe.trivial_because.empty()) meaningful.insert(recipe.entry_point);
  EXPECT_GE(meaningful.size(), 40u);
}

TEST(CallRecipes, FindsByIdAndPageAlignsHostMemory) {
  ASSERT_NE(find_recipe("cuMemFree"), nullptr);
  EXPECT_EQ(find_recipe("cuMemFree")->entry_point, "cuMemFree");
  ASSERT_NE(find_recipe("cuLaunchKernel#later"), nullptr);
  EXPECT_EQ(find_recipe("cuLaunchKernel#later")->entry_point, "cuLaunchKernel");
  EXPECT_EQ(find_recipe("cuNoSuchCall"), nullptr);
  RecipeState state;
  void* p = state.page_aligned(1 << 16);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 4096, 0u);
  EXPECT_EQ(state.page_aligned(1 << 16), p);
}

}  // namespace
}  // namespace gilsan::probe
