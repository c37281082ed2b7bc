// The classifier: from a Snapshot to a deadlock class, with the cycle (or the dead-end chain) that
// justifies it. Works on the plain Snapshot only, so tests feed it hand-built snapshots.
//
// With a cycle, the kinds of resources in it decide, most specific first:
//   finalization          the interpreter is finalizing and the cycle has the GIL or a parked thread
//   gil-driver-inversion  the GIL and a driver wait (stream, event, context, callback thread, lock)
//   callback-driver-lock  the driver's host-function lock (and no GIL)
//   user-lock-inversion   a user lock (and neither of the above)
//   callback-serialization  a pending host function that needs a busy callback thread (one
//                         context's, or the callback threads of several contexts in turn)
//   callback-self-wait    one thread only, waiting through the driver for its own host function
//   unknown               anything else
// The classes are the one table of checkers/core/deadlock_classes.inc, and the rules are the sanitizer
// core's classify_cycle (checkers/core/deadlock_class.h): tests/checkers/test_shared_cycle_shapes.cpp
// feeds both the same shapes.
// Without a cycle: finalization when the interpreter is finalizing and a wait chain ends at a host
// function whose thread exited or is parked, or at the GIL; gpu-stall when a chain ends at a stream,
// event or context that no host function holds up; unknown otherwise.
// Cycles resting only on the board are preferred to cycles that need inferred edges.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/watchdog/deadlock_class.h"
#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/thread_facts.h"
#include "harness/watchdog/wait_for_graph.h"
#include "harness/watchdog/wait_graph_builder.h"

namespace gilsan::watchdog {

struct Classification {
  DeadlockClass deadlock_class = DeadlockClass::unknown;
  std::vector<WaitEdge> cycle;       // the cycle that names the class; empty when there is none
  std::size_t cycles_found = 0;      // all cycles of the graph (inferred edges included)
  std::vector<std::string> reasons;  // why this class, one sentence each
  std::vector<std::string> inferred; // facts not read from the board
  WaitForGraph graph;
  SnapshotFacts facts;
};

Classification classify(const Snapshot& snapshot, const DriverCallBlocksPredicate& blocks_while_host_function_runs);

// The class a given cycle of `graph` names (exposed for tests).
DeadlockClass class_of_cycle(const std::vector<WaitEdge>& cycle, const WaitForGraph& graph,
                             const SnapshotFacts& facts);

}  // namespace gilsan::watchdog
