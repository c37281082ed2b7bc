#include "harness/probe/call_recipe.h"

#include <unistd.h>

#include <cstdint>

namespace gilsan::probe {

void* RecipeState::page_aligned(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (pageable.size() < bytes + page) pageable.assign(bytes + page, 0);
  auto address = reinterpret_cast<std::uintptr_t>(pageable.data());
  return pageable.data() + (page - address % page) % page;
}

const std::vector<CallRecipe>& call_recipes() {
  static const std::vector<CallRecipe> recipes = [] {
    std::vector<CallRecipe> all;
    add_device_and_context_recipes(all);
    add_stream_and_event_recipes(all);
    add_memory_recipes(all);
    add_module_and_graph_recipes(all);
    add_graph_structure_recipes(all);
    for (CallRecipe& recipe : all) recipe.entry_point = recipe.id.substr(0, recipe.id.find('#'));
    return all;
  }();
  return recipes;
}

const CallRecipe* find_recipe(const std::string& id) {
  for (const CallRecipe& recipe : call_recipes())
    if (recipe.id == id) return &recipe;
  return nullptr;
}

}  // namespace gilsan::probe
