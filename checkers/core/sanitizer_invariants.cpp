// SanitizerModel::check_invariants (tests only): the model's books checked against each other after an
// event, as Abseil's graphcycles checks its own. The fast paths (held-back begins, the last thread's
// cache, the launchers' descriptions) must leave them as the plain paths would.
#include <set>
#include <string>

#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {

std::string SanitizerModel::check_invariants() const {
  if (std::string graph = graph_.check_invariants(); !graph.empty()) return "graph: " + graph;
  if (!graph_.alive(gil_) || !(graph_.lock(gil_) == PseudoLock::gil())) return "the GIL's node is not alive";
  if (last_thread_ != nullptr) {
    auto cached = threads_.find(last_thread_id_);
    if (cached == threads_.end() || &cached->second != last_thread_) return "the last thread's cache is stale";
  }
  for (const auto& [id, state] : threads_) {
    const std::string who = "thread " + std::to_string(id) + ": ";
    std::set<NodeId> held;
    for (const HeldLock& lock : state.held) {
      if (lock.depth < 1) return who + "holds a node at depth " + std::to_string(lock.depth);
      if (!held.insert(lock.node).second) return who + "holds a node twice";
    }
    if (state.waiting_for_gil && held.contains(gil_)) return who + "waits for the GIL it holds";
    for (const ActiveHostFunction& active : state.host_functions) {
      for (NodeId node : active.holds) {
        if (!held.contains(node)) return who + "a running host function's hold is not among the thread's";
      }
      if (active.gil_depth_before < 0) return who + "a negative GIL depth before a host function";
    }
    if (state.begin_held_back) {
      // Held back only when the thread ran nothing and the begin was the last outer one again.
      if (!state.host_functions.empty() || !state.calls.empty() || !state.held.empty()) {
        return who + "a begin held back while the thread runs, calls or holds something";
      }
      if (!fast_paths_) return who + "a begin held back without the fast paths";
      if (!state.last_outer_nodes || !(*state.last_outer_nodes == state.held_back_nodes)) {
        return who + "a begin held back that is not the last outer one";
      }
    }
  }
  if (recent_begin_.valid && all_alive(recent_begin_.nodes)) {
    // What begin_nodes() would find without it.
    HostFunction key;
    key.context = recent_begin_.context;
    key.stream = recent_begin_.stream;
    const BeginEffects effects(key, false);  // the nodes depend on the stream and context alone
    const auto found = [&](const std::optional<PseudoLock>& lock) -> std::optional<NodeId> {
      return lock ? graph_.find_node(*lock) : std::nullopt;
    };
    const BeginNodes& cached = recent_begin_.nodes;
    if (found(effects.stream_completion()) != cached.stream || found(effects.context_completion()) != cached.context ||
        found(effects.callback_thread()) != cached.callback_thread ||
        found(effects.host_function_lock()) != cached.lock) {
      return "the last begin's nodes are not the nodes of its stream and context";
    }
  }
  for (const auto& [node, pending] : pending_) {
    if (!graph_.alive(node)) return "host functions pending on a retired node";
    if (graph_.lock(node).kind != PseudoLockKind::stream_completion) return "host functions pending on a node that is no stream";
  }
  for (const auto& [user_data, description] : described_) {
    if (description.enqueue_stack == nullptr) return "a launcher's description without its enqueue stack";
  }
  return "";
}

}  // namespace gilsan::checkers
