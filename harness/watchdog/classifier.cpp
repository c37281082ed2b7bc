#include "harness/watchdog/classifier.h"

#include <algorithm>
#include <set>

#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/wait_graph_builder.h"

namespace gilsan::watchdog {
namespace {

std::size_t inferred_edges(const std::vector<WaitEdge>& cycle) {
  return static_cast<std::size_t>(std::count_if(cycle.begin(), cycle.end(), [](const WaitEdge& e) { return e.inferred; }));
}

const std::vector<WaitEdge>* best_cycle(const std::vector<std::vector<WaitEdge>>& cycles) {
  const std::vector<WaitEdge>* best = nullptr;
  for (const auto& cycle : cycles) {
    if (best == nullptr || inferred_edges(cycle) < inferred_edges(*best) ||
        (inferred_edges(cycle) == inferred_edges(*best) && cycle.size() < best->size())) {
      best = &cycle;
    }
  }
  return best;
}

// The nodes a chain of waits from `start` ends at (nodes nothing further is known about).
void collect_dead_ends(const WaitForGraph& graph, const std::string& start, std::set<std::string>& seen,
                       std::vector<const WaitNode*>& dead_ends) {
  if (!seen.insert(start).second) return;
  auto out = graph.edges_from(start);
  if (out.empty()) {
    dead_ends.push_back(graph.node(start));
    return;
  }
  for (const WaitEdge* edge : out) collect_dead_ends(graph, edge->to, seen, dead_ends);
}

// A thread that holds the GIL and waits (directly) for one of the dead ends when that dead end is a
// stream, event or context and no thread is known to run a host function; null otherwise.
const ThreadFacts* gil_holder_waiting_for_work(const WaitForGraph& graph, const SnapshotFacts& facts,
                                               const std::vector<const WaitNode*>& dead_ends) {
  for (const ThreadFacts& thread : facts.threads) {
    if (thread.host_function) return nullptr;
  }
  for (const WaitNode* end : dead_ends) {
    if (end->kind != NodeKind::stream_completion && end->kind != NodeKind::event && end->kind != NodeKind::context_completion) continue;
    for (const ThreadFacts& thread : facts.threads) {
      if (thread.gil.state != board::GilState::Holds) continue;
      for (const WaitNode& node : graph.nodes()) {
        if (node.kind != NodeKind::thread || node.tid != thread.tid) continue;
        for (const WaitEdge* edge : graph.edges_from(node.id)) {
          if (edge->to == end->id) return &thread;
        }
      }
    }
  }
  return nullptr;
}

void classify_without_cycle(Classification& result) {
  const WaitForGraph& graph = result.graph;
  const SnapshotFacts& facts = result.facts;
  std::vector<const WaitNode*> dead_ends;
  std::set<std::string> seen;
  for (const WaitNode& node : graph.nodes()) {
    if (node.kind == NodeKind::thread && !graph.edges_from(node.id).empty()) {
      collect_dead_ends(graph, node.id, seen, dead_ends);
    }
  }
  if (facts.finalizing) {
    for (const WaitNode* end : dead_ends) {
      const ThreadFacts* thread = end->kind == NodeKind::thread ? facts.find(end->tid) : nullptr;
      if (thread != nullptr && thread->exited && thread->host_function) {
        result.deadlock_class = DeadlockClass::finalization;
        result.reasons.push_back("the interpreter is finalizing and " + thread->label() + " ended while running " +
                                 describe_host_function(thread->host_function->record));
        return;
      }
      if (thread != nullptr && thread->native_wait.kind == NativeWait::Kind::FinalizationHang) {
        result.deadlock_class = DeadlockClass::finalization;
        result.reasons.push_back("the interpreter is finalizing and " + thread->label() + " is parked in " +
                                 thread->native_wait.frame);
        return;
      }
      if (end->kind == NodeKind::gil) {
        result.deadlock_class = DeadlockClass::finalization;
        result.reasons.push_back("the interpreter is finalizing and threads wait for a GIL no thread is known to hold");
        return;
      }
    }
    // On the real driver nothing marks the callback thread of a native (ctypes) host function, and a
    // host function that asks for the GIL once finalization began is ended by CPython (3.12) or parked
    // for good (3.14): what remains is a GIL holder waiting for work that no thread runs.
    if (const ThreadFacts* holder = gil_holder_waiting_for_work(graph, facts, dead_ends); holder != nullptr) {
      result.deadlock_class = DeadlockClass::finalization;
      result.facts.inferred.push_back(holder->label() +
                                      " holds the GIL during finalization and waits for work no thread is seen "
                                      "running: a host function that needed the GIL is taken to have been ended "
                                      "or parked by the interpreter");
      result.inferred = result.facts.inferred;
      result.reasons.push_back("the interpreter is finalizing and " + holder->label() +
                               " holds the GIL while it waits for a stream whose host function no thread runs");
      return;
    }
  }
  for (const WaitNode* end : dead_ends) {
    if (end->kind == NodeKind::stream_completion || end->kind == NodeKind::event || end->kind == NodeKind::context_completion) {
      result.deadlock_class = DeadlockClass::gpu_stall;
      result.reasons.push_back(end->label + " does not complete and no host function holds it up: its device work "
                               "did not finish");
      return;
    }
  }
  result.deadlock_class = DeadlockClass::unknown;
  if (dead_ends.empty()) {
    result.reasons.push_back("no thread is known to wait for anything the board or the stacks identify");
  }
  for (const WaitNode* end : dead_ends) {
    result.reasons.push_back("a wait ends at " + end->label + ", about which nothing more is known");
  }
}

}  // namespace

DeadlockClass class_of_cycle(const std::vector<WaitEdge>& cycle, const WaitForGraph& graph,
                             const SnapshotFacts& facts) {
  std::set<NodeKind> kinds;
  std::set<int> threads;
  std::set<int> notifiers;  // threads the cycle reaches as the giver of a notification another awaits
  bool thread_to_thread = false;  // a driver wait whose stream was unknown, straight to a host function
  bool parked = false;
  for (const WaitEdge& edge : cycle) {
    const WaitNode* from = graph.node(edge.from);
    const WaitNode* to = graph.node(edge.to);
    kinds.insert(from->kind);
    if (from->kind == NodeKind::thread) {
      threads.insert(from->tid);
      const ThreadFacts* thread = facts.find(from->tid);
      parked |= thread != nullptr && thread->native_wait.kind == NativeWait::Kind::FinalizationHang;
      const bool notification = is_notification_evidence(edge.evidence);
      thread_to_thread |= to->kind == NodeKind::thread && !notification;
      if (notification) notifiers.insert(to->tid);
    }
  }
  // A thread that waits for a notification waits, through its notifier, for whatever the notifier
  // waits for: a host function that awaits a thread which waits in the driver for that host function's
  // own work waits for itself.
  for (int notifier : notifiers) threads.erase(notifier);
  auto has = [&](NodeKind kind) { return kinds.count(kind) != 0; };
  bool through_driver = has(NodeKind::stream_completion) || has(NodeKind::event) || has(NodeKind::context_completion) ||
                        has(NodeKind::callback_thread) || has(NodeKind::host_function_lock) || thread_to_thread;
  if (facts.finalizing && (has(NodeKind::gil) || parked)) return DeadlockClass::finalization;
  if (has(NodeKind::gil)) {
    if (through_driver) return DeadlockClass::gil_driver_inversion;
    return has(NodeKind::user_lock) ? DeadlockClass::user_lock_inversion : DeadlockClass::unknown;
  }
  if (has(NodeKind::host_function_lock)) return DeadlockClass::callback_driver_lock;
  if (has(NodeKind::user_lock)) return DeadlockClass::user_lock_inversion;
  // A pending host function needs a callback thread that a waiting host function keeps busy. Also
  // when the cycle runs through the callback threads of two contexts: the hang exists only because
  // each context runs its host functions one at a time, and whether two contexts share one thread is
  // the driver's choice (profile topology.callback_thread), which must not change the class. The
  // sanitizer core names the predicted cycle the same way (checkers/core/deadlock_class.cpp).
  if (has(NodeKind::callback_thread)) return DeadlockClass::callback_serialization;
  if (through_driver && threads.size() == 1) {
    const ThreadFacts* thread = facts.find(*threads.begin());
    if (thread != nullptr && thread->host_function) return DeadlockClass::callback_self_wait;
  }
  return DeadlockClass::unknown;
}

Classification classify(const Snapshot& snapshot, const DriverCallBlocksPredicate& blocks_while_host_function_runs) {
  Classification result;
  result.facts = derive_facts(snapshot);
  result.inferred = result.facts.inferred;
  result.graph = build_wait_for_graph(snapshot, result.facts, blocks_while_host_function_runs);

  auto all_cycles = result.graph.find_cycles(true);
  result.cycles_found = all_cycles.size();
  auto board_cycles = result.graph.find_cycles(false);
  const std::vector<WaitEdge>* chosen = best_cycle(board_cycles.empty() ? all_cycles : board_cycles);
  if (chosen == nullptr) {
    classify_without_cycle(result);
    return result;
  }
  result.cycle = *chosen;
  result.deadlock_class = class_of_cycle(result.cycle, result.graph, result.facts);
  for (const WaitEdge& edge : result.cycle) {
    // The report's list of what was not read from the board holds every inferred edge of the cycle too,
    // so that a cycle resting on one is never shown with an empty list.
    if (edge.inferred) {
      std::string fact = inferred_fact(edge.text, edge.evidence);
      if (std::find(result.inferred.begin(), result.inferred.end(), fact) == result.inferred.end())
        result.inferred.push_back(std::move(fact));
    }
    if (const auto at = edge.evidence.find(kAgainstTheProfile); at != std::string::npos) {
      const std::string entry_point = edge.evidence.substr(at + kAgainstTheProfile.size());
      result.reasons.push_back("the profile says " + entry_point +
                               " returns while a host function runs; this driver blocked it: run gilsan probe");
    }
  }
  std::size_t guessed = inferred_edges(result.cycle);
  result.reasons.push_back("a cycle of " + std::to_string(result.cycle.size()) + " waits" +
                           (guessed > 0 ? ", " + std::to_string(guessed) + " of them inferred" : "") +
                           (result.facts.finalizing ? ", while the interpreter is finalizing" : ""));
  return result;
}

}  // namespace gilsan::watchdog
