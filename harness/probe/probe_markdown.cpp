#include "harness/probe/probe_markdown.h"

#include <iomanip>
#include <set>
#include <sstream>

namespace gilsan::probe {
namespace {

std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string milliseconds(long long microseconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(microseconds < 10000 ? 2 : 0) << static_cast<double>(microseconds) / 1000.0
      << " ms";
  return out.str();
}

std::string inside_code(const InsideOutcome& o) {
  switch (o.observation) {
    case InsideObservation::Returned: return o.code ? o.code->name + " (" + std::to_string(o.code->code) + ")" : "?";
    case InsideObservation::NoReturn:
    case InsideObservation::WaitedForHostFunction:
      return "no return in " + std::to_string(o.waited_milliseconds) + " ms";
    case InsideObservation::NotMeasured: return "-";
  }
  return "?";
}

std::string inside_behaviour(const InsideOutcome& o) {
  if (auto verdict = inside_verdict(o)) return to_string(*verdict);
  if (o.observation == InsideObservation::WaitedForHostFunction) return "waits for itself (data dependency)";
  return "not measured: " + o.problem;
}

std::string outside_behaviour(const OutsideOutcome& o) {
  switch (o.observation) {
    case OutsideObservation::Returned:
      return "returns (" + milliseconds(o.call_microseconds) + (o.code ? ", " + o.code->name : "") + ")";
    case OutsideObservation::HeldBack:
      return "blocks (still inside after " + std::to_string(o.held_milliseconds) + " ms; " +
             (o.code ? o.code->name : "?") + " once released)";
    case OutsideObservation::WaitedForHostFunction:
      return "waits for the host function (data dependency)";
    case OutsideObservation::NeverReturned:
    case OutsideObservation::NotMeasured: return "not measured: " + o.problem;
  }
  return "?";
}

std::string control(const RecipeEvidence& r) {
  const std::optional<ResultCode>& c = r.inside.control ? r.inside.control : r.outside.control;
  return c ? c->name : "-";
}

bool failed(const std::optional<ResultCode>& code) {
  return code && code->code != CUDA_SUCCESS && code->code != CUDA_ERROR_NOT_READY;
}

std::string yes_no(const std::optional<bool>& value, const char* yes, const char* no, const std::string& missing) {
  return value ? (*value ? yes : no) : missing;
}

void topology_section(const ProbeEvidence& e, const DriverProfile& p, std::ostringstream& out) {
  const TopologyEvidence& t = e.topology;
  out << "## Topology\n\n| question | answer |\n| --- | --- |\n";
  out << "| which host functions share a callback thread | " << to_string(p.topology.callback_thread)
      << (t.callback_thread_note.empty() ? "" : " (" + t.callback_thread_note + ")") << " |\n";
  std::string threads;
  for (const auto& [label, tid] : t.callback_threads) threads += (threads.empty() ? "" : "; ") + label + ": " + std::to_string(tid);
  out << "| callback thread ids seen | " << cell(threads.empty() ? "-" : threads) << " |\n";
  const std::string missing = t.threads_problem.empty() ? "not measured" : "not measured: " + t.threads_problem;
  out << "| a host function of S2 runs while one of S1 (same context) is held | "
      << cell(yes_no(t.streams_concurrent, "yes: not serialized across streams", "no: serialized across streams", missing))
      << " |\n";
  out << "| a host function of a second context (same device) runs meanwhile | "
      << cell(yes_no(t.contexts_concurrent, "yes", "no", missing)) << " |\n";
  out << "| a host function of device 1 runs meanwhile | "
      << cell(yes_no(t.devices_concurrent, "yes", "no",
                     t.devices < 2 ? "not measured: " + std::to_string(t.devices) + " device(s)" : missing))
      << " |\n";
  out << "| cuCtxGetCurrent on the callback thread | "
      << cell(t.current_context_on_callback.empty() ? "not measured: " + t.callback_context_problem
                                                    : t.current_context_on_callback)
      << " |\n";
  out << "| cuLaunchHostFunc enqueue blocks at depth (host functions pending behind a running one, tried up to "
      << t.enqueue_limit << ") | "
      << cell(t.enqueue_measured ? (t.enqueue_blocks_at_depth ? std::to_string(*t.enqueue_blocks_at_depth) : "null") + " (" +
                                       t.enqueue_note + ")"
                                 : "not measured: " + (t.enqueue_problem.empty() ? t.enqueue_note : t.enqueue_problem))
      << " |\n\n";
}

void entry_point_section(const ProbeEvidence& e, std::ostringstream& out) {
  out << "## Entry points\n\n"
      << "Inside: the call made from inside a host function running on S1 (`not-permitted`: "
         "CUDA_ERROR_NOT_PERMITTED; `hangs`: no return within the timeout with no data dependency; `allowed`: "
         "any other result). Outside: the call made on another thread while a host function of the same "
         "context is held on S1 (`returns` while it is held, or `blocks` until it is released). Control: the "
         "same recipe with no host function anywhere.\n\n"
      << "| entry point | inside result code | inside behaviour | outside behaviour | recipe | control |\n"
      << "| --- | --- | --- | --- | --- | --- |\n";
  for (const RecipeEvidence& r : e.recipes) {
    out << "| " << cell(r.recipe->id) << " | " << cell(inside_code(r.inside)) << " | " << cell(inside_behaviour(r.inside))
        << " | " << cell(outside_behaviour(r.outside)) << " | " << cell(r.recipe->description) << " | " << cell(control(r))
        << " |\n";
  }
  out << "\n";
}

// The call matrices under EAGER: the recipes whose answer differs from lazy loading, and what the
// profile records of it (eager_call_overrides).
void eager_section(const ProbeEvidence& e, const DriverProfile& p, std::ostringstream& out) {
  if (e.eager_recipes.size() != e.recipes.size()) return;
  out << "## Entry points under CUDA_MODULE_LOADING=EAGER\n\n"
         "Both matrices again, each case in a process of its own under EAGER. Recipes whose inside or "
         "outside behaviour differs from the lazy run above:\n\n"
         "| entry point | inside behaviour (lazy -> eager) | outside behaviour (lazy -> eager) | recipe |\n"
         "| --- | --- | --- | --- |\n";
  bool any = false;
  for (std::size_t i = 0; i < e.recipes.size(); ++i) {
    const RecipeEvidence& lazy = e.recipes[i];
    const RecipeEvidence& eager = e.eager_recipes[i];
    // By verdict: the rows' text carries timings, which differ from run to run.
    if (inside_verdict(lazy.inside) == inside_verdict(eager.inside) &&
        outside_verdict(lazy.outside) == outside_verdict(eager.outside))
      continue;
    any = true;
    out << "| " << cell(lazy.recipe->id) << " | " << cell(inside_behaviour(lazy.inside) + " -> " + inside_behaviour(eager.inside))
        << " | " << cell(outside_behaviour(lazy.outside) + " -> " + outside_behaviour(eager.outside)) << " | "
        << cell(lazy.recipe->description) << " |\n";
  }
  if (!any) out << "| (none) | | | |\n";
  const CallTableOverrides overrides = p.eager_overrides();
  out << "\nThe profile's `eager_call_overrides`: ";
  std::string listed;
  for (const auto& [entry, behaviour] : overrides.inside_host_function)
    listed += (listed.empty() ? "" : ", ") + std::string("inside_host_function.") + entry + " = " + to_string(behaviour);
  for (const auto& [entry, behaviour] : overrides.while_host_function_runs)
    listed += (listed.empty() ? "" : ", ") + std::string("while_host_function_runs.") + entry + " = " + to_string(behaviour);
  out << (listed.empty() ? "none (the call tables are the same under both modes)" : listed) << ".\n\n";
}

void work_section(const ProbeEvidence& e, std::ostringstream& out) {
  out << "## Enqueued work (call returns? work completes?) by loading mode\n\n"
         "Each row in a process of its own, CUDA_MODULE_LOADING as named; work completes when S2 drains while "
         "the host function is still held.\n\n"
         "| mode | cell | recipe | result | call | work done after the call | behaviour |\n"
         "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const WorkEvidence& w : e.work) {
    const WorkOutcome& o = w.outcome;
    const std::string result = o.code ? o.code->name : "-";
    const std::string behaviour =
        o.problem.empty() ? describe(o.observation) : std::string(describe(o.observation)) + ": " + o.problem;
    const bool work_done = o.observation == WorkObservation::Proceeded || o.observation == WorkObservation::WorkWaited;
    out << "| " << to_string(w.mode) << " | `" << w.cell->cell->name << "` | `" << w.cell->recipe->id << "` | " << result
        << " | " << milliseconds(o.call_microseconds) << " | " << (work_done ? milliseconds(o.work_microseconds) : "-")
        << " | " << cell(behaviour) << " |\n";
  }
  out << "\n";
}

void trivial_section(const ProbeEvidence& e, std::ostringstream& out) {
  std::set<std::string> meaningful;
  std::vector<std::string> lines;
  for (const RecipeEvidence& r : e.recipes) {
    std::string why = trivially_exercised_because(r);
    if (why.empty()) {
      meaningful.insert(r.recipe->entry_point);
    } else {
      lines.push_back("- " + r.recipe->id + ": " + why);
    }
  }
  out << "## Only trivially exercised\n\n"
      << meaningful.size() << " of " << profiled_entry_points().size()
      << " entry points were exercised by at least one meaningful call. These recipes were not:\n\n";
  for (const auto& line : lines) out << line << "\n";
  if (lines.empty()) out << "(none)\n";
  out << "\n";
}

void runtime_section(const ProbeEvidence& e, std::ostringstream& out) {
  out << "## Runtime API vs driver API (inside a host function)\n\n";
  if (!e.runtime.ran) {
    out << "Skipped: " << (e.runtime.note.empty() ? "not run" : e.runtime.note) << "\n\n";
    return;
  }
  if (!e.runtime.note.empty()) out << "Runtime: " << e.runtime.note << ".\n\n";
  out << "| intent | runtime call | runtime result | driver recipe | driver result | differs |\n"
      << "| --- | --- | --- | --- | --- | --- |\n";
  for (const RuntimeRow& row : e.runtime.rows) {
    out << "| " << cell(row.intent->description) << " | " << cell(row.intent->runtime_call) << " | "
        << cell(row.runtime_result) << " | " << cell(row.intent->driver_recipe) << " | " << cell(row.driver_result)
        << " | " << (row.differs ? "yes" : "no") << " |\n";
  }
  out << "\n";
}

}  // namespace

std::string trivially_exercised_because(const RecipeEvidence& r) {
  if (!r.recipe->trivial_because.empty()) return r.recipe->trivial_because;
  for (const auto* c : {&r.inside.control, &r.outside.control})
    if (failed(*c)) return "the call fails with " + (*c)->name + " even with no host function running";
  if (!r.inside.control && !r.outside.control) return "its preparation failed, so it was never called";
  return {};
}

std::string render_markdown(const ProbeEvidence& e, const AssembledProfile& assembled) {
  const DriverProfile& p = assembled.profile;
  std::ostringstream out;
  out << "# Driver probe: " << p.origin.gpu << ", driver " << p.origin.driver_version << "\n\n";
  out << "Measured " << p.origin.date << " by `" << p.origin.method << "` through the driver API (CUDA "
      << p.origin.cuda_version << "). Driver: " << e.driver_choice << ", library `" << e.driver_library << "`";
  if (!e.simulated_profile.empty()) out << ", simulating the profile `" << e.simulated_profile << "`";
  out << ".\n\n";
  out << "Timeouts: " << describe(e.timeouts) << ". " << e.recipes.size() << " recipes, each in its own child "
      << "process for each matrix, " << e.jobs << " at a time; the run took "
      << std::fixed << std::setprecision(1) << static_cast<double>(e.elapsed.count()) / 1000.0 << " s.\n\n";
  topology_section(e, p, out);
  entry_point_section(e, out);
  eager_section(e, p, out);
  work_section(e, out);
  trivial_section(e, out);
  runtime_section(e, out);
  out << "## Not measured\n\n";
  if (assembled.unmeasured_because.empty()) out << "Every cell of the profile was measured.\n";
  for (const auto& [where, why] : assembled.unmeasured_because) out << "- " << where << ": " << cell(why) << "\n";
  return out.str();
}

}  // namespace gilsan::probe
