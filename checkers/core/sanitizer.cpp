#include "checkers/core/sanitizer.h"

#include <atomic>

#include "checkers/core/per_thread.h"
#include "checkers/core/sanitizer_model.h"

namespace gilsan::checkers {
namespace {

std::atomic<std::uint64_t> g_sanitizers{0};

// The calling thread's GIL release that has not reached the model yet (Sanitizer::gil_released).
struct HeldBackGil {
  std::uint64_t sanitizer = 0;  // Sanitizer::instance_; 0: nothing held back
  ThreadId thread = 0;
  // released: the release waits for the thread's next event. reacquiring: the thread began to take
  // the GIL back and the round trip was found to change nothing; its gil_acquired is the last of it.
  enum class Stage { released, reacquiring } stage = Stage::released;
};

// A thread's own (per_thread.h: it is asked for until the thread's last moments, finish() at exit).
HeldBackGil& held_back_gil() { return PerThread<HeldBackGil>::get(); }

// How deep this thread is inside a Sanitizer's own work (busy_on_this_thread). Trivial, so no guard
// and no destructor; initial-exec, as the board's thread-locals.
[[gnu::tls_model("initial-exec")]] thread_local int t_inside_sanitizer = 0;

struct InsideSanitizer {
  InsideSanitizer() { ++t_inside_sanitizer; }
  ~InsideSanitizer() { --t_inside_sanitizer; }
  InsideSanitizer(const InsideSanitizer&) = delete;
  InsideSanitizer& operator=(const InsideSanitizer&) = delete;
};

}  // namespace

bool Sanitizer::busy_on_this_thread() { return t_inside_sanitizer != 0; }

SanitizerConfig config_from_options(std::string_view options_text, const Options& defaults,
                                    DriverBehaviour driver, std::ostream& text_out) {
  SanitizerConfig config;
  config.options = parse_options(options_text, defaults);
  config.driver = std::move(driver);
  if (!config.options.suppressions.empty()) {
    config.suppressions = Suppressions::load(config.options.suppressions);
  }
  // The JSON sink first: at the end the text sink then also shows whether the file was written.
  if (!config.options.report_path.empty()) {
    config.sinks.push_back(std::make_shared<JsonFileSink>(config.options.report_path));
  }
  config.sinks.push_back(std::make_shared<TextSink>(text_out));
  return config;
}

Sanitizer::Sanitizer(SanitizerConfig config)
    : instance_(++g_sanitizers),
      options_(std::move(config.options)),
      suppressions_(std::move(config.suppressions)),
      sinks_(std::move(config.sinks)),
      halt_(std::move(config.halt)),
      symbolize_stack_(std::move(config.symbolize_stack)),
      announcer_(ValgrindAnnouncer::create(config.driver)),
      fast_paths_(config.fast_paths),
      model_(std::make_unique<SanitizerModel>(options_, std::move(config.driver), config.fast_paths)) {
  model_->set_stack_capture(std::move(config.capture_stack), std::move(config.capture_enqueue_stack));
}

Sanitizer::~Sanitizer() = default;

template <typename Handler>
void Sanitizer::handle(Handler&& handler, GilDependence gil) {
  const InsideSanitizer inside;
  std::vector<Report> fresh;
  bool halt_now = false;
  {
    std::lock_guard lock(state_mutex_);
    if (summary_) {
      // Whatever the thread held back came after the end too.
      events_after_finish_ += 1 + static_cast<std::size_t>(apply_held_back_gil(*model_, fresh));
      return;
    }
    if (gil == GilDependence::depends) apply_held_back_gil(*model_, fresh);
    handler(*model_, fresh);
    if (fresh.empty()) return;  // almost every event: nothing to symbolize, suppress or deliver
    if (symbolize_stack_) {
      for (Report& report : fresh) {
        symbolize_stack_(report.stack);
        for (CycleEdge& edge : report.edges) symbolize_stack_(edge.evidence.stack);
      }
    }
    std::erase_if(fresh, [this](const Report& report) {
      const bool suppressed = suppressions_.match(report) != nullptr;
      suppressed_ += suppressed ? 1 : 0;
      return suppressed;
    });
    reports_.insert(reports_.end(), fresh.begin(), fresh.end());
    if (!fresh.empty() && options_.halt_on_error && halt_ && !halted_) {
      halted_ = true;
      halt_now = true;
    }
  }
  // Sinks run without the state lock, so that other threads' events are not held up by output.
  if (!fresh.empty()) deliver(fresh);
  if (halt_now) halt_(options_.exitcode);
}

int Sanitizer::apply_held_back_gil(SanitizerModel& model, std::vector<Report>& out) {
  HeldBackGil& held = held_back_gil();
  if (held.sanitizer != instance_) return 0;
  held.sanitizer = 0;
  const int events = held.stage == HeldBackGil::Stage::reacquiring ? 2 : 1;
  if (summary_) return events;
  // Brings the model to where the events sent so far would have: released, or released and waiting
  // to take the GIL back (holding nothing else, so that draws nothing).
  model.gil_released(held.thread);
  if (held.stage == HeldBackGil::Stage::reacquiring) model.gil_acquire_begin(held.thread, {}, out);
  return events;
}

bool Sanitizer::holds_back_release(ThreadId thread) const {
  const HeldBackGil& held = held_back_gil();
  return held.sanitizer == instance_ && held.thread == thread && held.stage == HeldBackGil::Stage::released;
}

template <typename TakeBack>
bool Sanitizer::end_held_back_round_trip(ThreadId thread, TakeBack&& take_back) {
  bool skipped = false;
  handle([&](SanitizerModel& model, auto& out) {
    held_back_gil().sanitizer = 0;  // taken over here
    skipped = model.gil_round_trip_changes_nothing(thread);
    if (skipped) return;
    model.gil_released(thread);
    take_back(model, out);
  }, GilDependence::independent);
  return skipped;
}

void Sanitizer::deliver(const std::vector<Report>& reports) {
  std::lock_guard lock(delivery_mutex_);
  for (const auto& sink : sinks_) {
    for (const Report& report : reports) {
      try {
        sink->on_report(report);
      } catch (const std::exception& error) {
        sink_errors_.push_back(error.what());
      }
    }
  }
}

void Sanitizer::name_thread(ThreadId thread, std::string name) {
  handle([&](SanitizerModel& model, auto&) { model.name_thread(thread, std::move(name)); });
}
void Sanitizer::thread_exited(ThreadId thread) {
  handle([&](SanitizerModel& model, auto&) { model.thread_exited(thread); });
}
void Sanitizer::driver_call_enter(const DriverCallEnter& event) {
  handle([&](SanitizerModel& model, auto& out) { model.driver_call_enter(event, out); });
  if (announcer_) announcer_->driver_call_enter(event);
}
void Sanitizer::driver_call_exit(const DriverCallExit& event) {
  handle([&](SanitizerModel& model, auto& out) { model.driver_call_exit(event, out); });
}
void Sanitizer::host_function_enqueued(const HostFunctionEnqueued& event) {
  // Made inside the launch, which a binding makes with the GIL let go (the release may be held back):
  // what the model does with an enqueue does not depend on the thread's GIL.
  handle([&](SanitizerModel& model, auto& out) { model.host_function_enqueued(event, out); },
         GilDependence::independent);
}
void Sanitizer::host_function_begin(const HostFunctionBegin& event) {
  handle([&](SanitizerModel& model, auto& out) { model.host_function_begin(event, out); });
  if (announcer_) announcer_->host_function_begin(event);
}
void Sanitizer::host_function_end(ThreadId thread) {
  handle([&](SanitizerModel& model, auto& out) { model.host_function_end(thread, out); });
  if (announcer_) announcer_->host_function_end(thread);
}
void Sanitizer::host_function_skipped(ThreadId thread) {
  handle([&](SanitizerModel& model, auto& out) { model.host_function_skipped(thread, out); });
}
void Sanitizer::gil_acquire_begin(ThreadId thread, const Stack& stack) {
  if (holds_back_release(thread)) {
    const bool skipped = end_held_back_round_trip(
        thread, [&](SanitizerModel& model, auto& out) { model.gil_acquire_begin(thread, stack, out); });
    // Its gil_acquired then ends it (or any other event applies it as released and waiting).
    if (skipped) held_back_gil() = {instance_, thread, HeldBackGil::Stage::reacquiring};
    return;
  }
  handle([&](SanitizerModel& model, auto& out) { model.gil_acquire_begin(thread, stack, out); });
}
void Sanitizer::gil_acquired(ThreadId thread) {
  HeldBackGil& held = held_back_gil();
  if (held.sanitizer == instance_ && held.thread == thread && held.stage == HeldBackGil::Stage::reacquiring) {
    held.sanitizer = 0;  // the end of a round trip that changed nothing
  } else if (holds_back_release(thread)) {
    // Taken back without a gil_acquire_begin.
    end_held_back_round_trip(thread, [&](SanitizerModel& model, auto& out) { model.gil_acquired(thread, out); });
  } else {
    handle([&](SanitizerModel& model, auto& out) { model.gil_acquired(thread, out); });
  }
  if (announcer_) announcer_->gil_acquired(thread);
}
void Sanitizer::gil_released(ThreadId thread) {
  HeldBackGil& held = held_back_gil();
  if (fast_paths_ && held.sanitizer == 0) {
    held = {instance_, thread, HeldBackGil::Stage::released};
  } else {
    handle([&](SanitizerModel& model, auto&) { model.gil_released(thread); });
  }
  if (announcer_) announcer_->gil_released(thread);
}
void Sanitizer::lock_acquire(const LockAcquire& event) {
  handle([&](SanitizerModel& model, auto& out) { model.lock_acquire(event, out); });
  if (announcer_) announcer_->lock_acquire(event);
}
void Sanitizer::lock_release(ThreadId thread, std::uint64_t lock) {
  handle([&](SanitizerModel& model, auto&) { model.lock_release(thread, lock); });
  if (announcer_) announcer_->lock_release(thread, lock);
}
void Sanitizer::lock_destroyed(std::uint64_t lock) {
  handle([&](SanitizerModel& model, auto&) { model.lock_destroyed(lock); });
  if (announcer_) announcer_->lock_destroyed(lock);
}
void Sanitizer::stream_destroyed(Handle context, Handle stream) {
  handle([&](SanitizerModel& model, auto&) { model.stream_destroyed(context, stream); });
  if (announcer_) announcer_->stream_destroyed(context, stream);
}
void Sanitizer::context_destroyed(Handle context) {
  handle([&](SanitizerModel& model, auto&) { model.context_destroyed(context); });
  if (announcer_) announcer_->context_destroyed(context);
}
void Sanitizer::context_failed(Handle context) {
  handle([&](SanitizerModel& model, auto&) { model.context_failed(context); });
}
void Sanitizer::interpreter_finalization_began() {
  handle([&](SanitizerModel& model, auto&) { model.interpreter_finalization_began(); });
  if (announcer_) announcer_->interpreter_finalization_began();
}
void Sanitizer::interpreter_finished() {
  handle([&](SanitizerModel& model, auto& out) { model.interpreter_finished(out); });
}
void Sanitizer::unraisable_in_host_function(const UnraisableInHostFunction& event) {
  handle([&](SanitizerModel& model, auto& out) { model.unraisable_in_host_function(event, out); });
}
void Sanitizer::callable_released(const CallableReleased& event) {
  handle([&](SanitizerModel& model, auto& out) { model.callable_released(event, out); });
}
void Sanitizer::graph_holds_callable(std::uint64_t graph, const HostFunction& host_function) {
  handle([&](SanitizerModel& model, auto&) { model.graph_holds_callable(graph, host_function); });
}
void Sanitizer::graph_destroyed(std::uint64_t graph) {
  handle([&](SanitizerModel& model, auto&) { model.graph_destroyed(graph); });
}

RunSummary Sanitizer::finish() {
  const InsideSanitizer inside;
  std::lock_guard finishing(finish_mutex_);
  {
    std::lock_guard lock(state_mutex_);
    if (summary_) {
      RunSummary again = *summary_;
      again.ignored_events += events_after_finish_;
      return again;
    }
  }
  // The last findings go through the usual path (suppressions, sinks, halt) before the summary.
  handle([&](SanitizerModel& model, auto& out) { model.finish(out); });
  RunSummary summary;
  {
    std::lock_guard lock(state_mutex_);
    summary.reports = reports_;
    summary.suppressed = suppressed_;
    summary.unused_suppressions = suppressions_.unused();
    summary.ignored_events = model_->ignored_events();
    summary.exit_code = reports_.empty() ? 0 : options_.exitcode;
  }
  {
    std::lock_guard lock(delivery_mutex_);
    for (const auto& sink : sinks_) {
      summary.sink_errors = sink_errors_;  // each sink sees the failures of the sinks before it
      try {
        sink->on_finish(summary);
      } catch (const std::exception& error) {
        sink_errors_.push_back(error.what());
      }
    }
    summary.sink_errors = sink_errors_;
  }
  std::lock_guard lock(state_mutex_);
  summary_ = summary;
  return summary;
}

int Sanitizer::exit_code() const {
  std::lock_guard lock(state_mutex_);
  return reports_.empty() ? 0 : options_.exitcode;
}

std::size_t Sanitizer::waiting_host_functions() const {
  std::lock_guard lock(state_mutex_);
  return model_->waiting_runs();
}

std::string Sanitizer::check_invariants() const {
  std::lock_guard lock(state_mutex_);
  return model_->check_invariants();
}

std::vector<Report> Sanitizer::reports() const {
  std::lock_guard lock(state_mutex_);
  return reports_;
}

}  // namespace gilsan::checkers
