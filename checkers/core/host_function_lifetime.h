// HostFunctionLifetime: follows each callable a source keeps alive for the driver
// (HostFunction::id) and finds the two lifetime bugs of a host_launch implementation:
// - released before its last run: the source let go of the callable while runs were still enqueued,
//   running, or possible (a live graph holds it); the driver would call freed memory;
// - kept after its graph is gone: every graph holding it is destroyed, yet the source never
// released
//   it (a leak; found at the end of the run).
// A run of a callable released before that run is reported too. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "checkers/core/handles.h"
#include "checkers/core/node_pool.h"

namespace gilsan::checkers {

class HostFunctionLifetime {
 public:
  struct Finding {
    HostFunction host_function;
    std::string message;
  };

  void enqueued(const HostFunction& host_function);
  std::optional<Finding> began(const HostFunction& host_function);
  void ended(std::uint64_t id);
  // `abandoned_runs`: the source knows the driver will never run what is still enqueued (a sticky
  // error), so releasing now is right.
  std::optional<Finding> released(std::uint64_t id, bool abandoned_runs);
  void graph_holds(std::uint64_t graph, const HostFunction& host_function);
  void graph_destroyed(std::uint64_t graph);
  std::vector<Finding> at_finish() const;

 private:
  struct Callable {
    HostFunction last_seen;
    int pending_runs = 0;
    int running = 0;
    bool released = false;
    bool reported = false;  // one finding per callable is enough
    bool was_in_graph = false;
    std::unordered_set<std::uint64_t> live_graphs;
  };

  Callable& fresh(std::uint64_t id);
  void forget_if_done(std::uint64_t id);

  using Callables = std::unordered_map<std::uint64_t, Callable>;
  Callables::iterator make(std::uint64_t id);  // the entry of `id`, made in a kept node if need be
  Callables callables_;
  NodePool<Callables> callable_nodes_;
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> graph_callables_;
  // Ids released with nothing outstanding, kept for the last kRememberReleased releases to recognize a
  // run after release. An id can be released again after a reuse (a new callable at the same address)
  // while its earlier release is still queued: each release is numbered, and the queue's entry forgets
  // the id only if it is still the id's latest release.
  static constexpr std::size_t kRememberReleased = 4096;
  struct Release {
    std::uint64_t id;
    std::uint64_t number;
  };
  std::deque<Release> released_order_;
  std::unordered_map<std::uint64_t, std::uint64_t> recently_released_;  // id -> number of its latest release
  std::uint64_t releases_ = 0;
};

}  // namespace gilsan::checkers
