#include "harness/probe/profile_diff.h"

#include <algorithm>
#include <set>

namespace gilsan::probe {
namespace {

std::string depth_text(const std::optional<int>& depth) { return depth ? std::to_string(*depth) : "null"; }

bool lists(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Entry points one profile's file lists and the other's does not: new or removed, with the answers
// of the profile that lists them (the other's are the unmeasured ones, absent_entry_points.h).
// Returns them: their cells are not compared.
std::set<std::string> diff_entry_points(const DriverProfile& before, const DriverProfile& after,
                                        std::vector<std::string>& out) {
  std::set<std::string> listed;
  std::set<std::string> lacked(before.absent_entry_points.begin(), before.absent_entry_points.end());
  lacked.insert(after.absent_entry_points.begin(), after.absent_entry_points.end());
  for (const std::string& entry : lacked) {  // sorted, as the tables' cells below
    const bool was = !lists(before.absent_entry_points, entry);
    const bool now = !lists(after.absent_entry_points, entry);
    if (was == now) continue;
    const DriverProfile& listing = now ? after : before;
    out.push_back(std::string(now ? "new" : "removed") + " entry point " + entry + ": inside_host_function " +
                  to_string(listing.inside(entry)) + ", while_host_function_runs " + to_string(listing.outside(entry)));
    listed.insert(entry);
  }
  return listed;
}

// `skipped`: entries not compared (those diff_entry_points listed).
template <typename Table>
void diff_table(const std::string& name, const Table& before, const Table& after, std::vector<std::string>& out,
                const std::string& absent = "(absent)", const std::set<std::string>& skipped = {}) {
  std::set<std::string> entries;
  for (const auto& [entry, value] : before) entries.insert(entry);
  for (const auto& [entry, value] : after) entries.insert(entry);
  for (const std::string& entry : entries) {
    if (skipped.contains(entry)) continue;
    auto b = before.find(entry);
    auto a = after.find(entry);
    std::string was = b == before.end() ? absent : to_string(b->second);
    std::string now = a == after.end() ? absent : to_string(a->second);
    if (was != now) out.push_back(name + "." + entry + ": " + was + " -> " + now);
  }
}

}  // namespace

std::vector<std::string> diff_profiles(const DriverProfile& before, const DriverProfile& after) {
  std::vector<std::string> out;
  const DriverProfileTopology& b = before.topology;
  const DriverProfileTopology& a = after.topology;
  if (b.callback_thread != a.callback_thread)
    out.push_back(std::string("topology.callback_thread: ") + to_string(b.callback_thread) + " -> " +
                  to_string(a.callback_thread));
  if (b.serialized_across_streams != a.serialized_across_streams)
    out.push_back(std::string("topology.serialized_across_streams: ") + (b.serialized_across_streams ? "true" : "false") +
                  " -> " + (a.serialized_across_streams ? "true" : "false"));
  if (b.enqueue_blocks_at_depth != a.enqueue_blocks_at_depth)
    out.push_back("topology.enqueue_blocks_at_depth: " + depth_text(b.enqueue_blocks_at_depth) + " -> " +
                  depth_text(a.enqueue_blocks_at_depth));
  const std::set<std::string> one_lacks = diff_entry_points(before, after, out);
  diff_table("inside_host_function", before.inside_host_function, after.inside_host_function, out, "(absent)", one_lacks);
  diff_table("while_host_function_runs", before.while_host_function_runs, after.while_host_function_runs, out,
             "(absent)", one_lacks);
  for (ModuleLoading mode : module_loading_modes()) {
    const EnqueuedWorkTable none;
    auto b_table = before.enqueued_work.find(mode);
    auto a_table = after.enqueued_work.find(mode);
    diff_table(std::string("enqueued_work_while_host_function_runs.") + to_string(mode),
               b_table == before.enqueued_work.end() ? none : b_table->second,
               a_table == after.enqueued_work.end() ? none : a_table->second, out);
  }
  // The EAGER call tables where they differ from the lazy ones, measured or derived from the cells
  // (DriverProfile::eager_overrides): a profile from before they were measured compares by what it implies.
  const CallTableOverrides b_eager = before.eager_overrides();
  const CallTableOverrides a_eager = after.eager_overrides();
  diff_table("eager_call_overrides.inside_host_function", b_eager.inside_host_function, a_eager.inside_host_function,
             out, "(as lazy)", one_lacks);
  diff_table("eager_call_overrides.while_host_function_runs", b_eager.while_host_function_runs,
             a_eager.while_host_function_runs, out, "(as lazy)", one_lacks);
  return out;
}

}  // namespace gilsan::probe
