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

  const HostFunction* current_host_function() const {
    return host_functions.empty() ? nullptr : &host_functions.back().host_function;
  }
  HeldLock* find(NodeId node) {
    for (HeldLock& lock : held) {
      if (lock.node == node) return &lock;
    }
    return nullptr;
  }
  void drop(NodeId node) {
    std::erase_if(held, [node](const HeldLock& lock) { return lock.node == node; });
  }
};

}  // namespace gilsan::checkers
