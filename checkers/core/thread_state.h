// What the sanitizer knows about one thread: what it holds, which host function and which driver
// calls it is in. Plain data, owned and locked by SanitizerModel.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkers/core/host_function_runs.h"
#include "checkers/core/lock_order_graph.h"
#include "checkers/core/report.h"

namespace gilsan::checkers {

struct HeldLock {
  NodeId node = 0;
  int depth = 1;  // re-entrant acquisitions (the GIL through PyGILState_Ensure, an RLock)
};

struct ActiveHostFunction {
  HostFunction host_function;
  std::vector<NodeId>
      holds;  // what running it holds: completions, callback thread, host-function lock
  int gil_depth_before = 0;  // the thread's GIL depth before it began, restored at its end
};

// The pseudo-locks a host function's begin holds and waits on, as graph nodes: its stream's and its
// context's completion, the context's callback thread and host-function lock. A node stays the same
// for as long as its stream or context lives (a destroyed one's identity gets a new node), and the
// graph's edges are never removed, so two begins with the same nodes draw the same edges.
struct BeginNodes {
  std::optional<NodeId> stream;
  std::optional<NodeId> context;
  std::optional<NodeId> callback_thread;
  std::optional<NodeId> lock;
  bool takes_gil = false;  // BeginEffects::takes_gil
  bool operator==(const BeginNodes&) const = default;
};

struct ActiveCall {
  CallInfo call;
  Stack stack;
};

struct ThreadState {
  std::string name;
  std::vector<HeldLock> held;  // in acquisition order
  bool waiting_for_gil = false;
  std::vector<ActiveHostFunction> host_functions;  // innermost last; more than one only if nested
  std::vector<ActiveCall> calls;                   // innermost last
  // Host functions that ended, kept for their buffers: host_function_begin takes the last one back
  // and assigns over it, so that a thread running host functions allocates nothing per run. As many
  // as were ever nested (the driver's record of a run and the launcher's trampoline inside it: two).
  std::vector<ActiveHostFunction> spare_host_functions;
  // The description of the last run this thread enqueued (host-function-lost-at-exit's books): the
  // next run enqueued the same way shares it instead of making its own strings and stack.
  std::shared_ptr<const HostFunctionRuns::Description> last_enqueued;
  // A repeated host function's begin that so far only the books have seen (sanitizer_begins.cpp):
  // applied to the graph before the thread's next event, or dropped with its end.
  bool begin_held_back = false;
  HostFunction held_back;  // its host function (assigned over: the strings' buffers are reused)
  BeginNodes held_back_nodes;
  // The nodes and kind of the last begin applied in full while the thread ran and held nothing.
  std::optional<BeginNodes> last_outer_nodes;
  HostFunctionKind last_outer_kind = HostFunctionKind::native;

  const HostFunction* current_host_function() const {
    return host_functions.empty() ? nullptr : &host_functions.back().host_function;
  }
  HeldLock* find(NodeId node) {
    for (HeldLock& lock : held) {
      if (lock.node == node) return &lock;
    }
    return nullptr;
  }
  const HeldLock* find(NodeId node) const {
    for (const HeldLock& lock : held) {
      if (lock.node == node) return &lock;
    }
    return nullptr;
  }
  void hold(NodeId node) {
    if (HeldLock* lock = find(node)) {
      ++lock->depth;
    } else {
      held.push_back({node, 1});
    }
  }
  void unhold(NodeId node) {
    if (HeldLock* lock = find(node); lock && --lock->depth == 0) drop(node);
  }
  void drop(NodeId node) {
    std::erase_if(held, [node](const HeldLock& lock) { return lock.node == node; });
  }
};

}  // namespace gilsan::checkers
