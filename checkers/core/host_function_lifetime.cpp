#include "checkers/core/host_function_lifetime.h"

#include <algorithm>

#include "checkers/core/describe.h"

namespace gilsan::checkers {

HostFunctionLifetime::Callables::iterator HostFunctionLifetime::make(std::uint64_t id) {
  return callable_nodes_.find_or_make(callables_, id, [](Callable& callable) {
    HostFunction kept = std::move(callable.last_seen);
    reset_keeping_buffers(kept);
    callable = Callable{};
    callable.last_seen = std::move(kept);
  });
}

HostFunctionLifetime::Callable& HostFunctionLifetime::fresh(std::uint64_t id) {
  // An id seen again after its release is a new callable at a reused address.
  const bool released_before = recently_released_.erase(id) != 0;
  auto found = callables_.find(id);
  if (found != callables_.end() && (released_before || found->second.released))
    callable_nodes_.erase(callables_, found);
  return make(id)->second;
}

void HostFunctionLifetime::forget_if_done(std::uint64_t id) {
  auto found = callables_.find(id);
  if (found == callables_.end()) return;
  const Callable& callable = found->second;
  if (!callable.released || callable.pending_runs > 0 || callable.running > 0 ||
      !callable.live_graphs.empty()) {
    return;
  }
  callable_nodes_.erase(callables_, found);
  if (recently_released_.contains(id)) return;
  const std::uint64_t number = ++releases_;
  released_order_.push_back({id, number});
  if (released_order_.size() <= kRememberReleased) {
    recently_released_.emplace(id, number);
    return;
  }
  // The oldest release is forgotten; if it is still its id's latest, the id goes, and its node
  // remembers this one.
  const Release oldest = released_order_.front();
  released_order_.pop_front();
  auto latest = recently_released_.find(oldest.id);
  if (latest == recently_released_.end() || latest->second != oldest.number) {
    recently_released_.emplace(id, number);
    return;
  }
  auto node = recently_released_.extract(latest);
  node.key() = id;
  node.mapped() = number;
  recently_released_.insert(std::move(node));
}

void HostFunctionLifetime::enqueued(const HostFunction& host_function) {
  if (host_function.id == 0) return;
  Callable& callable = fresh(host_function.id);
  callable.last_seen = host_function;
  ++callable.pending_runs;
}

std::optional<HostFunctionLifetime::Finding> HostFunctionLifetime::began(
    const HostFunction& host_function) {
  if (host_function.id == 0) return std::nullopt;
  if (recently_released_.contains(host_function.id)) {
    return Finding{host_function, describe(host_function) + " ran after its callable was released"};
  }
  Callable& callable = make(host_function.id)->second;
  callable.last_seen = host_function;
  if (callable.pending_runs > 0) --callable.pending_runs;
  ++callable.running;
  if (callable.released && !callable.reported) {
    callable.reported = true;
    return Finding{host_function, describe(host_function) + " ran after its callable was released"};
  }
  return std::nullopt;
}

void HostFunctionLifetime::ended(std::uint64_t id) {
  auto found = callables_.find(id);
  if (found == callables_.end() || found->second.running == 0) return;
  --found->second.running;
  forget_if_done(id);
}

std::optional<HostFunctionLifetime::Finding> HostFunctionLifetime::released(std::uint64_t id,
                                                                            bool abandoned_runs) {
  auto found = callables_.find(id);
  if (found == callables_.end()) return std::nullopt;  // never enqueued as far as we know
  Callable& callable = found->second;
  callable.released = true;
  if (abandoned_runs) callable.pending_runs = 0;
  std::optional<Finding> finding;
  if (callable.pending_runs > 0 || callable.running > 0 || !callable.live_graphs.empty()) {
    std::string why;
    if (callable.running > 0)
      why = "while it was running";
    else if (callable.pending_runs > 0)
      why = "with " + std::to_string(callable.pending_runs) + " run(s) still enqueued";
    else
      why =
          "while " + std::to_string(callable.live_graphs.size()) + " graph(s) can still launch it";
    callable.reported = true;
    finding = Finding{callable.last_seen,
                      "the callable of " + describe(callable.last_seen) + " was released " + why};
  }
  forget_if_done(id);
  return finding;
}

void HostFunctionLifetime::graph_holds(std::uint64_t graph, const HostFunction& host_function) {
  const std::uint64_t id = host_function.id;
  if (id == 0) return;
  Callable& callable = fresh(id);
  callable.last_seen = host_function;
  callable.was_in_graph = true;
  callable.live_graphs.insert(graph);
  graph_callables_[graph].push_back(id);
}

void HostFunctionLifetime::graph_destroyed(std::uint64_t graph) {
  auto found = graph_callables_.find(graph);
  if (found == graph_callables_.end()) return;
  const std::vector<std::uint64_t> ids = std::move(found->second);
  graph_callables_.erase(found);
  for (std::uint64_t id : ids) {
    auto callable = callables_.find(id);
    if (callable == callables_.end()) continue;
    callable->second.live_graphs.erase(graph);
    forget_if_done(id);
  }
}

std::vector<HostFunctionLifetime::Finding> HostFunctionLifetime::at_finish() const {
  std::vector<Finding> findings;
  for (const auto& [id, callable] : callables_) {
    if (callable.released || !callable.was_in_graph || !callable.live_graphs.empty() ||
        callable.pending_runs > 0 || callable.running > 0) {
      continue;
    }
    findings.push_back(
        {callable.last_seen, "the callable of " + describe(callable.last_seen) +
                                 " was kept after every graph holding it was destroyed"});
  }
  // The map's order is arbitrary; reports come out in a stable order.
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return a.host_function.id < b.host_function.id;
  });
  return findings;
}

}  // namespace gilsan::checkers
