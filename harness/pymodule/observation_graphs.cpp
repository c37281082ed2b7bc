// The callables the module's graphs hold, followed for a sanitizer's host-function-lifetime checker
// (observation.h: the observe_graph_* functions and the payload releases): which graph or exec owns
// which Python payload, what each launch runs, and when a payload's destructor is due.
#include <mutex>
#include <unordered_map>
#include <vector>

#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/observation.h"
#include "harness/pymodule/observation_shared.h"

namespace gilsan::pymodule {
namespace {

// Which graphs and execs own which Python payloads, followed only for a sanitizer: it needs to know
// the owners (graph_holds / graph_destroyed), what each launch runs, and which runs a failed launch took
// back. Module calls (GIL held) and user-object destructors (driver threads) meet here, so a mutex
// guards it; hooks are called under it, which keeps each owner's events in order, and the sanitizer
// never calls back.
struct FollowedCallables {
  struct Payload {
    int owners = 0;              // live graphs and execs holding it; 0: its destructor is due
    long long failed_runs = 0;   // runs counted as enqueued by launches that failed
  };
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::vector<const HostPayload*>> owned;  // by owner id
  std::unordered_map<const HostPayload*, Payload> payloads;
  std::unordered_map<CUstream, CUgraph> capturing;  // streams capturing a graph with followed payloads
};

// Never destroyed: user-object destructors run on driver threads while the process exits.
FollowedCallables& followed() {
  static auto* const instance = new FollowedCallables();
  return *instance;
}

// A graph and an exec may share a handle value: their owner ids differ in the low bit.
std::uint64_t graph_owner(CUgraph graph) { return as_id(graph) << 1; }
std::uint64_t exec_owner(CUgraphExec exec) { return (as_id(exec) << 1) | 1; }

bool followed_payload(const HostPayload* payload) {
  return payload != nullptr && payload->kind == HostPayload::Kind::PythonCall;
}

// Under followed().mutex: `owner` is gone; payloads it was the last owner of now wait for their
// destructor, which the exit drain waits for.
void forget_owner_locked(const GilsanSanitizerHooks& hooks, FollowedCallables& state, std::uint64_t owner) {
  const auto found = state.owned.find(owner);
  if (found == state.owned.end()) return;
  long long due = 0;
  for (const HostPayload* payload : found->second) {
    const auto record = state.payloads.find(payload);
    if (record != state.payloads.end() && record->second.owners > 0 && --record->second.owners == 0) ++due;
  }
  state.owned.erase(found);
  hooks.graph_destroyed(owner);
  if (due != 0) user_object_destructors_due(due);
}

}  // namespace

void observe_graph_host_functions_enqueued(CUgraphExec exec, long long count, CUstream stream, CUcontext context) {
  for (long long i = 0; i < count; ++i)
    board::note_host_function_enqueued(info_of(nullptr, as_id(&kGraphHostFunctionTag), stream, context));
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(exec_owner(exec));
  if (found == state.owned.end()) return;
  for (const HostPayload* payload : found->second) {
    const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
    hooks->host_function_enqueued(&host_function);
  }
}

void observe_graph_host_functions_dropped(CUgraphExec exec, long long count) {
  for (long long i = 0; i < count; ++i) board::note_host_function_dropped(as_id(&kGraphHostFunctionTag), kImplementation);
  if (sanitizer() == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(exec_owner(exec));
  if (found == state.owned.end()) return;
  for (const HostPayload* payload : found->second) ++state.payloads[payload].failed_runs;
}

void observe_payload_released(const HostPayload* payload) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks != nullptr && followed_payload(payload)) hooks->callable_released(payload->serial, 0);
}

void observe_graph_host_node_added(CUgraph graph, const HostPayload* payload, CUstream capturing_stream) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || !followed_payload(payload)) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  state.owned[graph_owner(graph)].push_back(payload);
  ++state.payloads[payload].owners;
  if (capturing_stream != nullptr) state.capturing[capturing_stream] = graph;
  const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
  hooks->graph_holds(graph_owner(graph), &host_function);
}

void observe_graph_instantiated(CUgraph graph, CUgraphExec exec) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(graph_owner(graph));
  if (found == state.owned.end()) return;
  // A reference, unlike the iterator, stays valid when the insertion below rehashes the map.
  const std::vector<const HostPayload*>& graph_payloads = found->second;
  const std::uint64_t owner = exec_owner(exec);
  // A fresh exec: a stale list at a reused handle was erased when that exec died.
  state.owned[owner] = graph_payloads;
  for (const HostPayload* payload : graph_payloads) {
    ++state.payloads[payload].owners;
    const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
    hooks->graph_holds(owner, &host_function);
  }
}

void observe_graph_destroyed(CUgraph graph) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  forget_owner_locked(*hooks, state, graph_owner(graph));
}

void observe_graph_exec_destroyed(CUgraphExec exec) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  forget_owner_locked(*hooks, state, exec_owner(exec));
}

void observe_capture_ended(CUstream stream, bool graph_returned) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.capturing.find(stream);
  if (found == state.capturing.end()) return;
  const CUgraph graph = found->second;
  state.capturing.erase(found);
  // The driver destroyed the graph inside cuStreamEndCapture, so its destructors may already have run:
  // a known gap (docs/sanitizer.md), as the module learns of the failure only now.
  if (!graph_returned) forget_owner_locked(*hooks, state, graph_owner(graph));
}

void observe_graph_payload_released(const HostPayload* payload) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || !followed_payload(payload)) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.payloads.find(payload);
  if (found == state.payloads.end()) return;  // never owned by a graph as far as we know (a failed add)
  const bool was_due = found->second.owners == 0;
  const bool abandoned_runs = found->second.failed_runs > 0;
  state.payloads.erase(found);
  hooks->callable_released(payload->serial, abandoned_runs ? 1 : 0);
  if (was_due) user_object_destructors_due(-1);
}

}  // namespace gilsan::pymodule
