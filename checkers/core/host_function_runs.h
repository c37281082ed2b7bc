// HostFunctionRuns: the host-function-lost-at-exit checker's books. For each run key the driver gives
// (HostFunction::run_key: one per stream launch, one per graph host node), how many runs were
// enqueued, have begun and have ended, with what the launcher said about the host function and where
// it was enqueued. A host function is lost when its user's callable never ran:
// - a Python host function still waiting, or cut off mid-run, when the interpreter finished: nothing
//   can run Python any more (CPython ends or parks a thread that takes the GIL then);
// - one its launcher skipped because the interpreter was finalizing (the reference module does);
// - any host function still waiting when the process ended.
// Runs of a context whose work failed with a sticky error are abandoned by the driver, not lost.
// Not thread-safe: SanitizerModel serializes it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "checkers/core/handles.h"
#include "checkers/core/node_pool.h"

namespace gilsan::checkers {

class HostFunctionRuns {
 public:
  struct Lost {
    std::uint64_t run_key = 0;
    HostFunction host_function;
    std::string enqueued_by;  // "thread 123 (main)", or "" when no enqueue was seen
    Stack enqueue_stack;
    std::string why;  // the end of the report's sentence: "was enqueued and never ran: ..."
  };

  // What a run is, as it will be reported if it is lost: the host function (the run's own handles
  // and ids are kept beside it, in Run), who enqueued it and where. Shared by every run the same thread
  // enqueues the same way, so that a launch loop makes one, not one per launch (the model keeps the
  // last one per thread, SanitizerModel::note_driver_enqueue).
  struct Description {
    HostFunction host_function;
    std::string enqueued_by;       // "thread 123 (main)"
    std::string enqueued_by_name;  // that thread's name then, to tell when the text is out of date
    std::shared_ptr<const Stack> enqueue_stack;  // never null
  };
  // What is a run's own: its key (HostFunction::run_key), where it was enqueued, and the launcher's
  // ids of the callable (HostFunction::id, user_data).
  struct Run {
    std::uint64_t run_key = 0;
    Handle context = 0;
    std::optional<Handle> stream;
    std::uint64_t id = 0;
    std::uint64_t user_data = 0;
  };

  // A run was enqueued (ignored when run.run_key is 0).
  void enqueued(const Run& run, std::shared_ptr<const Description> description);
  void began(std::uint64_t run_key);
  void ended(std::uint64_t run_key);
  // The launcher's trampoline ran but did not call the callable (the interpreter was finalizing).
  std::optional<Lost> skipped(std::uint64_t run_key);
  // A driver call on `context` returned an error that poisons it: its queued work never runs.
  void context_failed(Handle context);
  // The interpreter finished: its Python host functions that have not run never will.
  std::vector<Lost> interpreter_finished();
  // The process ends: every run still waiting is lost.
  std::vector<Lost> process_ending();

  // Runs enqueued that have not begun, not counting those already reported lost or abandoned by a
  // failed context (the runner waits for these after finalization).
  std::size_t waiting_runs() const;

 private:
  struct Runs {
    std::shared_ptr<const Description> description;
    Run run;
    int waiting = 0;  // enqueued, not begun (briefly -1 when the driver's begin overtakes the enqueue)
    int running = 0;
    bool reported = false;  // one finding per key
  };
  std::vector<Lost> collect(bool python_only, const std::string& waiting_why, const std::string& running_why);
  Lost lost(std::uint64_t key, Runs& runs, std::string why);
  void forget_if_done(std::unordered_map<std::uint64_t, Runs>::iterator found);

  std::unordered_map<std::uint64_t, Runs> runs_;
  NodePool<std::unordered_map<std::uint64_t, Runs>> runs_nodes_;
  std::unordered_set<Handle> failed_contexts_;
};

// Whether a CUresult leaves its context unusable (an illegal address, a failed launch, ...): the
// driver then never runs that context's queued host functions.
bool is_sticky_error(int result);

}  // namespace gilsan::checkers
