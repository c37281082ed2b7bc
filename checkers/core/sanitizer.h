// Sanitizer: the thread-safe entry point of the sanitizer core. Event sources (the reference
// module, the simulated driver's observer hooks, the CUPTI injection library) call its event
// methods from any thread; it keeps the lock-order graph, runs the checkers, filters reports
// through the suppressions and hands them to its sinks. docs/sanitizer.md describes the model and
// every event.
//
// Event methods never call back into the source, the driver or the interpreter, and throw nothing
// but std::bad_alloc (and whatever the front end's own `halt` throws); a sink that fails is
// recorded in RunSummary::sink_errors instead.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "checkers/core/events.h"
#include "checkers/core/options.h"
#include "checkers/core/report.h"
#include "checkers/core/report_sink.h"
#include "checkers/core/suppressions.h"
#include "checkers/core/valgrind_announcer.h"

namespace gilsan::checkers {

class SanitizerModel;

struct SanitizerConfig {
  Options options;
  DriverBehaviour driver;
  Suppressions suppressions;
  std::vector<std::shared_ptr<ReportSink>> sinks;
  // With halt_on_error, called once, after the first unsuppressed report has reached the sinks and
  // outside every lock, with options.exitcode. The front end decides what halting means (_exit in
  // the injected library, an exception in a test); the core never exits the process itself.
  std::function<void(int exit_code)> halt;
  // Stacks on demand, for a source that does not capture one per event (docs/sanitizer.md,
  // "Stacks"). Called only when the core keeps a stack that the event did not carry -- the first
  // time an edge is drawn, a report that is new -- so an edge or report already seen costs nothing.
  // It runs on the calling thread, under the sanitizer's lock, and must not send events; `thread`
  // is the thread the stack is wanted for: a capture asked for another thread returns {}.
  std::function<Stack(ThreadId thread)> capture_stack;
  // The same, for the one stack kept per Python launch (where it was enqueued, for
  // host-function-lost-at-exit): a launch loop asks it for the same stack again and again, and it may
  // answer with the same object (the scenario child keeps the last one per thread). Empty:
  // capture_stack's answer.
  std::function<std::shared_ptr<const Stack>(ThreadId thread)> capture_enqueue_stack;
  // Names the frames of a new report's stacks (raw addresses a capture kept, to stay cheap),
  // before suppressions see them. Empty: stacks are kept as captured.
  std::function<void(Stack& stack)> symbolize_stack;
  // The shortcuts that skip work which changes nothing (a repeated native host function's begin held
  // back, a GIL release held back until it matters). Off, every event is applied as it comes: the
  // plain reference the randomized differential test (tests/checkers/test_fast_paths_reference.cpp)
  // holds the shortcuts to. Reports are the same either way.
  bool fast_paths = true;
};

// The usual front-end setup: options parsed from `options_text` over `defaults`, the suppression
// file they name loaded, a TextSink on `text_out`, and a JsonFileSink when report_path is set.
// Throws OptionsError or SuppressionError.
SanitizerConfig config_from_options(std::string_view options_text, const Options& defaults,
                                    DriverBehaviour driver, std::ostream& text_out);

class Sanitizer {
 public:
  explicit Sanitizer(SanitizerConfig config);
  ~Sanitizer();
  Sanitizer(const Sanitizer&) = delete;
  Sanitizer& operator=(const Sanitizer&) = delete;

  // Threads.
  void name_thread(ThreadId thread, std::string name);  // "main", "worker-2": shown in reports
  void thread_exited(ThreadId thread);                  // forget it: the OS may reuse its id

  // Driver calls, as every source sees them.
  void driver_call_enter(const DriverCallEnter& event);
  void driver_call_exit(const DriverCallExit& event);

  // Host functions: enqueued on a stream, then run by the driver's callback thread. A driver-level
  // source sets HostFunction::run_key on both (and sends an enqueue per graph host node per launch);
  // a launcher (the gilsan module) sends its own enqueue, with the userData it gave the driver.
  void host_function_enqueued(const HostFunctionEnqueued& event);
  void host_function_begin(const HostFunctionBegin& event);
  void host_function_end(ThreadId thread);
  // The launcher's trampoline, inside `thread`'s current host function, did not call the callable
  // (the interpreter was finalizing): that run is lost.
  void host_function_skipped(ThreadId thread);

  // The GIL, from trampolines we control. Re-entrant: a thread that holds it may acquire it again.
  // A release is held back on the calling thread until its next event: a thread that lets the GIL go
  // around a driver call and takes it back holding nothing else (the module's host_launch, every call)
  // changes nothing in the model, and then costs one lock instead of three. Any other event of the
  // thread applies the release first, so the model never sees them out of order; send a thread's GIL
  // events from that thread.
  void gil_acquire_begin(ThreadId thread, const Stack& stack = {});
  void gil_acquired(ThreadId thread);
  void gil_released(ThreadId thread);

  // User locks, where the source can see them.
  void lock_acquire(const LockAcquire& event);
  void lock_release(ThreadId thread, std::uint64_t lock);
  void lock_destroyed(std::uint64_t lock);  // its id may be reused by a new lock

  // Driver objects that went away: a new one with the same handle starts with no history.
  void stream_destroyed(Handle context, Handle stream);
  void context_destroyed(Handle context);
  // A driver call on `context` returned an error that poisons it (a sticky error), for a source that
  // did not send that call: its queued host functions will never run, and are not lost but abandoned.
  void context_failed(Handle context);

  // The interpreter, and the callables the source keeps alive for the driver.
  void interpreter_finalization_began();
  // Py_FinalizeEx returned: Python host functions that have not run never will.
  void interpreter_finished();
  void unraisable_in_host_function(const UnraisableInHostFunction& event);
  void callable_released(const CallableReleased& event);
  void graph_holds_callable(std::uint64_t graph, const HostFunction& host_function);
  void graph_destroyed(std::uint64_t graph);

  // The end of the run: last findings, then every sink's on_finish. Later calls return the same
  // summary and deliver nothing; events after it are counted as ignored.
  RunSummary finish();

  // True while the calling thread is inside a Sanitizer's own work (an event, a report's stacks,
  // symbolization and delivery, finish): a source that watches the whole process (native locks) leaves
  // what the sanitizer itself does out, as the program did not do it.
  static bool busy_on_this_thread();
  // What the process should exit with: 0, or options.exitcode when there were unsuppressed reports.
  int exit_code() const;
  std::vector<Report> reports() const;  // the unsuppressed reports so far
  // Tests only: SanitizerModel::check_invariants() of the model as it stands ("" when they hold).
  std::string check_invariants() const;
  // Host functions enqueued that have not begun (not counting those already reported lost): a front
  // end that can wait for the driver before finish() (the scenario child's drain) polls it.
  std::size_t waiting_host_functions() const;

 private:
  // Runs `handler` on the model under the state lock, then delivers its reports. The calling thread's
  // held-back GIL events are applied first unless the event does not depend on its GIL state (or
  // the handler takes them over itself).
  enum class GilDependence { depends, independent };
  template <typename Handler>
  void handle(Handler&& handler, GilDependence gil = GilDependence::depends);
  // Applies this thread's held-back GIL events, if they are this Sanitizer's (under state_mutex_).
  // Returns how many events they were (0: none).
  int apply_held_back_gil(SanitizerModel& model, std::vector<Report>& out);
  // Whether the calling thread holds back a release of the GIL by `thread` for this Sanitizer.
  bool holds_back_release(ThreadId thread) const;
  // The thread takes the GIL back while its release is held back: the round trip reaches the model
  // only when it changes something, as the release and then `take_back`. True when it was skipped.
  template <typename TakeBack>
  bool end_held_back_round_trip(ThreadId thread, TakeBack&& take_back);
  void deliver(const std::vector<Report>& reports);

  const std::uint64_t instance_;  // tells this Sanitizer's held-back GIL events from an earlier one's
  const Options options_;
  Suppressions suppressions_;
  std::vector<std::shared_ptr<ReportSink>> sinks_;
  std::function<void(int)> halt_;
  std::function<void(Stack&)> symbolize_stack_;
  // Under Valgrind only: the same holds and waits, told to Helgrind (valgrind_announcer.h). Called
  // after handle(), outside every lock of ours, so Helgrind sees no order with our own mutexes.
  const std::unique_ptr<ValgrindAnnouncer> announcer_;
  const bool fast_paths_;  // SanitizerConfig::fast_paths

  std::mutex finish_mutex_;         // one finish() at a time; taken before the others
  mutable std::mutex state_mutex_;  // guards everything below down to delivery_mutex_
  std::unique_ptr<SanitizerModel> model_;
  std::vector<Report> reports_;
  std::size_t suppressed_ = 0;
  std::size_t events_after_finish_ = 0;
  std::optional<RunSummary> summary_;
  bool halted_ = false;

  std::mutex delivery_mutex_;  // one sink call at a time; never held with state_mutex_
  std::vector<std::string> sink_errors_;
};

}  // namespace gilsan::checkers
