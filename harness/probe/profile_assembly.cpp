#include "harness/probe/profile_assembly.h"

#include <algorithm>

namespace gilsan::probe {
namespace {

int restrictiveness(InsideBehaviour b) {
  switch (b) {
    case InsideBehaviour::Allowed: return 0;
    case InsideBehaviour::NotPermitted: return 1;
    case InsideBehaviour::Hangs: return 2;
  }
  return 0;
}

std::string why_inside(const std::vector<const RecipeEvidence*>& recipes) {
  std::string why;
  for (const RecipeEvidence* r : recipes) {
    std::string part = r->inside.observation == InsideObservation::WaitedForHostFunction
                           ? "the call waits for the host function itself"
                           : r->inside.problem;
    why += (why.empty() ? "" : "; ") + r->recipe->id + ": " + part;
  }
  return why;
}

std::string why_outside(const std::vector<const RecipeEvidence*>& recipes) {
  std::string why;
  for (const RecipeEvidence* r : recipes) {
    std::string part = r->outside.observation == OutsideObservation::WaitedForHostFunction
                           ? "the call waits for the host function's stream by its nature"
                           : r->outside.problem;
    why += (why.empty() ? "" : "; ") + r->recipe->id + ": " + part;
  }
  return why;
}

// One entry point's answers from its recipes' cases (first-use-only recipes left out); nullopt where
// no case decided, with why.
struct EntryVerdicts {
  std::optional<InsideBehaviour> inside;
  std::optional<OutsideBehaviour> outside;
  std::string why_no_inside;
  std::string why_no_outside;
};

EntryVerdicts decide_entry(const std::vector<RecipeEvidence>& evidence, const std::string& entry) {
  std::vector<const RecipeEvidence*> recipes;
  for (const RecipeEvidence& r : evidence)
    if (r.recipe->entry_point == entry && !r.recipe->first_use_only) recipes.push_back(&r);
  EntryVerdicts out;
  for (const RecipeEvidence* r : recipes)
    if (auto v = inside_verdict(r->inside); v && (!out.inside || restrictiveness(*v) > restrictiveness(*out.inside)))
      out.inside = v;
  for (const RecipeEvidence* r : recipes)
    if (auto v = outside_verdict(r->outside); v && (!out.outside || *v == OutsideBehaviour::Blocks)) out.outside = v;
  out.why_no_inside = recipes.empty() ? "no recipe" : why_inside(recipes);
  out.why_no_outside = recipes.empty() ? "no recipe" : why_outside(recipes);
  return out;
}

}  // namespace

AssembledProfile assemble_profile(const ProbeEvidence& evidence, const DriverProfile* carry_over) {
  AssembledProfile out;
  DriverProfile& p = out.profile;
  p.origin = evidence.origin;
  auto unmeasured = [&](const std::string& cell, const std::string& why) {
    p.unmeasured.push_back(cell);
    out.unmeasured_because[cell] = why + (carry_over ? " (value carried over from " + evidence.carried_over_from + ")"
                                                     : " (value assumed)");
  };

  for (const std::string& entry : profiled_entry_points()) {
    const EntryVerdicts lazy = decide_entry(evidence.recipes, entry);
    if (lazy.inside) {
      p.inside_host_function[entry] = *lazy.inside;
    } else {
      p.inside_host_function[entry] = carry_over ? carry_over->inside(entry) : InsideBehaviour::Allowed;
      unmeasured("inside_host_function." + entry, lazy.why_no_inside);
    }
    if (lazy.outside) {
      p.while_host_function_runs[entry] = *lazy.outside;
    } else {
      p.while_host_function_runs[entry] = carry_over ? carry_over->outside(entry) : OutsideBehaviour::Returns;
      unmeasured("while_host_function_runs." + entry, lazy.why_no_outside);
    }
  }

  // The same cases under EAGER: only where they differ from the lazy tables. A cell no EAGER case
  // decided keeps the carry-over's EAGER answer, else the lazy one. Evidence without EAGER cases
  // leaves the key out: not measured.
  CallTableOverrides eager;
  for (const std::string& entry : evidence.eager_recipes.empty() ? std::vector<std::string>{} : profiled_entry_points()) {
    const EntryVerdicts measured = decide_entry(evidence.eager_recipes, entry);
    InsideBehaviour inside = p.inside_host_function.at(entry);
    if (measured.inside) {
      inside = *measured.inside;
    } else {
      if (carry_over) inside = carry_over->inside(ModuleLoading::Eager, entry);
      unmeasured("eager_call_overrides.inside_host_function." + entry, measured.why_no_inside);
    }
    if (inside != p.inside_host_function.at(entry)) eager.inside_host_function[entry] = inside;
    OutsideBehaviour outside = p.while_host_function_runs.at(entry);
    if (measured.outside) {
      outside = *measured.outside;
    } else {
      if (carry_over) outside = carry_over->outside(ModuleLoading::Eager, entry);
      unmeasured("eager_call_overrides.while_host_function_runs." + entry, measured.why_no_outside);
    }
    if (outside != p.while_host_function_runs.at(entry)) eager.while_host_function_runs[entry] = outside;
  }
  if (!evidence.eager_recipes.empty()) p.eager_call_overrides = eager;

  const TopologyEvidence& t = evidence.topology;
  const DriverProfileTopology fallback = carry_over ? carry_over->topology : DriverProfileTopology{};
  if (t.callback_thread) {
    p.topology.callback_thread = *t.callback_thread;
  } else {
    p.topology.callback_thread = fallback.callback_thread;
    unmeasured("topology.callback_thread", t.threads_problem.empty() ? t.callback_thread_note : t.threads_problem);
  }
  if (t.streams_concurrent) {
    p.topology.serialized_across_streams = !*t.streams_concurrent;
  } else {
    p.topology.serialized_across_streams = fallback.serialized_across_streams;
    unmeasured("topology.serialized_across_streams", t.threads_problem);
  }
  if (t.enqueue_measured) {
    p.topology.enqueue_blocks_at_depth = t.enqueue_blocks_at_depth;
  } else {
    p.topology.enqueue_blocks_at_depth = fallback.enqueue_blocks_at_depth;
    unmeasured("topology.enqueue_blocks_at_depth", t.enqueue_problem.empty() ? t.enqueue_note : t.enqueue_problem);
  }

  // A cell no case decided keeps the carry-over's value, else what a /1 profile with this call table
  // and topology reads (completion unknown: the work is taken to complete, unless it is a host
  // function that the topology serializes behind the running one).
  const auto derived = enqueued_work_from_calls(p.while_host_function_runs, p.topology);
  for (ModuleLoading mode : module_loading_modes()) {
    for (const EnqueuedWorkCell& cell : enqueued_work_cells()) {
      const WorkEvidence* measured = nullptr;
      for (const WorkEvidence& w : evidence.work)
        if (w.mode == mode && w.cell->cell == &cell) measured = &w;
      const std::optional<WorkBehaviour> verdict = measured ? work_verdict(measured->outcome) : std::nullopt;
      if (verdict) {
        p.enqueued_work[mode][cell.name] = *verdict;
        continue;
      }
      p.enqueued_work[mode][cell.name] = carry_over ? carry_over->work(mode, cell.name) : derived.at(mode).at(cell.name);
      unmeasured("enqueued_work_while_host_function_runs." + std::string(to_string(mode)) + "." + cell.name,
                 measured                                  ? measured->cell->recipe->id + ": " + measured->outcome.problem
                 : cell.runtime_call && !evidence.work_skipped_because.empty() ? "no case: " + evidence.work_skipped_because
                                                                               : "no case");
    }
  }
  return out;
}

}  // namespace gilsan::probe
