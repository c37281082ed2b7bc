// What the sanitizer reports: one Report per finding, deduplicated, plus the RunSummary at the end.
// Renderers: report_text.h (for people) and report_json.h (schema gilsan-sanitizer-report/1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkers/core/checker.h"
#include "checkers/core/deadlock_class.h"
#include "checkers/core/handles.h"
#include "checkers/core/pseudo_lock.h"

namespace gilsan::checkers {

// A driver call as a report shows it.
struct CallInfo {
  std::string entry_point;
  Handle context = 0;
  std::optional<Handle> stream;
  std::optional<Handle> event;
  std::optional<int> result;  // nullopt while the call has not returned
  std::string result_name;
  bool returned = false;
};

// A thread as it was when the reported thing happened.
struct ThreadInfo {
  ThreadId id = 0;
  std::string name;                           // from name_thread; may be empty
  std::optional<HostFunction> host_function;  // the host function it was running, if any
};

// How the thread of an edge came to wait for the edge's head.
enum class WaitKind {
  driver_wait,      // a driver call waiting for a stream or context to drain
  driver_blocked,   // a driver call the driver blocks while a host function runs
  gil,              // taking the GIL
  user_lock,        // taking a user lock
  callback_thread,  // a host function waiting for its context's callback thread
};

// The first time an edge was seen: who held the tail, how it waited for the head, its stack.
struct EdgeEvidence {
  ThreadInfo thread;
  WaitKind wait = WaitKind::gil;
  std::optional<CallInfo> call;  // for driver_wait and driver_blocked
  Stack stack;
};

struct CycleEdge {
  std::size_t from = 0;  // index into Report::cycle
  std::size_t to = 0;
  std::string sentence;  // one sentence for people: who holds what and waits for what
  EdgeEvidence evidence;
};

struct Report {
  Checker checker = Checker::lock_order_cycle;
  std::string summary;  // one line
  // lock-order-cycle only: the pseudo-locks in edge order, the edges between them, the class.
  std::vector<PseudoLock> cycle;
  std::vector<CycleEdge> edges;
  std::optional<DeadlockClass> deadlock_class;
  // The other checkers: the thread, call and host function concerned, a detail, the stack.
  std::optional<ThreadInfo> thread;
  std::optional<CallInfo> call;
  std::optional<HostFunction> host_function;
  std::string message;
  Stack stack;
};

struct UnusedSuppression {
  std::string file;
  int line = 0;
  std::string checker;
  std::string pattern;
};

// What finish() hands to every sink.
struct RunSummary {
  std::vector<Report> reports;  // unsuppressed, in the order they were made
  std::size_t suppressed = 0;
  std::vector<UnusedSuppression> unused_suppressions;
  // Events that did not fit the model (a release of something not held, an exit without enter):
  // the source is probably missing events; counted rather than fatal.
  std::size_t ignored_events = 0;
  std::vector<std::string> sink_errors;  // a sink that failed (e.g. an unwritable report_path)
  int exit_code = 0;
};

}  // namespace gilsan::checkers
