// CallRecipe: how the probe exercises one driver entry point, in both matrices.
//
// A recipe prepares fresh objects (before any host function runs), then makes exactly one call of
// its entry point. The outside matrix makes that call on another thread while a host function is
// held on S1; the inside matrix makes it from inside a host function on S1. Recipes avoid real data
// dependencies on S1 (they use S2 or fresh objects), so a call that waits was held back by the
// driver, not by the work it asked for; the few recipes that depend on S1 by their nature say so.
// The halves of every pair are separate recipes: cuMemFree frees memory allocated in preparation.
#pragma once

#include <cuda.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "harness/probe/probe_fixture.h"

namespace gilsan::probe {

// The objects one run of a recipe works on; each recipe uses the few it needs.
struct RecipeState {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
  CUevent second_event = nullptr;
  CUdeviceptr device_memory = 0;
  CUdeviceptr second_device_memory = 0;
  void* host_memory = nullptr;
  std::vector<unsigned char> pageable;  // ordinary host memory; page-aligned use via page_aligned()
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
  CUgraph graph = nullptr;
  CUgraph second_graph = nullptr;
  CUgraphNode node = nullptr;
  CUgraphNode second_node = nullptr;
  CUgraphExec exec = nullptr;
  CUuserObject user_object = nullptr;
  CUmemoryPool pool = nullptr;
  unsigned long long spin_nanoseconds = 0;  // the spin kernel's one parameter
  void* kernel_params[1] = {&spin_nanoseconds};

  // A page-aligned `bytes` inside `pageable` (allocated on first use), for cuMemHostRegister.
  void* page_aligned(std::size_t bytes);
};

// Whether a recipe's call waits, by its nature, for the work of stream S1, where the probe's host
// function runs. Such a call cannot tell "held back by the driver" from "waits for the host function".
enum class Dependency {
  None,
  OnHostFunction,
};

struct CallRecipe {
  std::string id;           // the entry point's name, or "name#variant" for a second recipe of it
  std::string entry_point;  // the profiled entry point the call exercises
  std::string description;  // for the markdown: what the call does, on what
  // Before the host function; may be empty. Throws SetupFailure.
  std::function<void(const ProbeFixture&, RecipeState&)> prepare;
  // After the host function has been enqueued on S1 (for calls that need work ordered after it);
  // may be empty. Throws SetupFailure.
  std::function<void(const ProbeFixture&, RecipeState&)> after_host_function_enqueued;
  // The one measured call of `entry_point`.
  std::function<CUresult(const ProbeFixture&, RecipeState&)> call;
  Dependency dependency = Dependency::None;
  // A kernel's first use in a context (the enqueued-work table's first-use cells measure it under
  // each loading mode). It runs in both matrices, for the Markdown, but does not decide the call
  // tables: those describe the entry point in its steady state, which the sanitizer applies to every
  // call of it. Otherwise one lazily loaded kernel would make every GIL-held launch of a warm one a
  // reported cycle.
  bool first_use_only = false;
  // Non-empty when the recipe exercises the entry point only trivially, and why.
  std::string trivial_because;
};

// Every recipe, in entry-point order: at least one per profiled entry point
// (profiled_entry_points()), the first of each being its main recipe.
const std::vector<CallRecipe>& call_recipes();
// The recipe with that id, or null.
const CallRecipe* find_recipe(const std::string& id);

// The recipe families, one file each; call_recipes() concatenates them.
void add_device_and_context_recipes(std::vector<CallRecipe>& out);
void add_stream_and_event_recipes(std::vector<CallRecipe>& out);
void add_memory_recipes(std::vector<CallRecipe>& out);
void add_module_and_graph_recipes(std::vector<CallRecipe>& out);
void add_graph_structure_recipes(std::vector<CallRecipe>& out);

}  // namespace gilsan::probe
