// InjectHandler: the logic of libgilsan_inject.so, fed one DriverApiCallback at a time (from CUPTI
// in a real process, by hand in tests). It turns driver-API callbacks into Sanitizer events and
// wraps every host function the application enqueues, so that the Sanitizer sees when each one runs
// and on which thread. See docs/sanitizer.md, "Injecting into a CUDA process".
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checkers/core/sanitizer.h"
#include "checkers/inject/call_classes.h"
#include "checkers/inject/driver_api_callback.h"
#include "checkers/inject/handler_thread_state.h"
#include "checkers/inject/injected_driver.h"
#include "checkers/inject/own_time_stats.h"
#include "checkers/inject/record_pool.h"
#include "checkers/inject/wrapped_host_function.h"
#include "checkers/sources/code_address.h"
#include "checkers/sources/completion_waits.h"
#include "checkers/sources/error_names.h"

namespace gilsan::checkers::inject {

enum class WrapMode {
  undecided,  // no self-test yet: the first wrap runs it
  rewrite,    // launch arguments are rewritten to our wrapper (undocumented, self-tested)
  markers,    // marker host functions around each user host function; graph host nodes unseen
};

struct InjectOptions {
  ErrorNames error_names;
  // Whether the calling thread holds the GIL at a call's entry (a PythonGilProbe in a real process).
  std::function<std::optional<bool>()> holds_gil;
  bool write_board = false;  // also record calls and host functions on the board (GILSAN_BOARD)
  // Send host_function_enqueued (it only feeds gil-held-blocking-call's list of pending host
  // functions, so a front end with that checker off saves the event on every launch).
  bool report_enqueued = true;
  // The CUDA runtime's name for a cudaError_t ("" if unknown), for runtime calls made inside a host
  // function (runtime_error_names.h in a real process). Empty: reports show the number alone.
  std::function<std::string_view(int result)> runtime_error_name;
  // Receives the one line that says which mode the library uses (stderr in a real process).
  std::function<void(std::string_view line)> announce;
  // Where the wrapper adds its own time (GILSAN_OPTIONS stats=1); null: not timed.
  OwnTimeStats* stats = nullptr;
};

class InjectHandler {
 public:
  InjectHandler(Sanitizer& sanitizer, InjectedDriver driver, DriverBehaviour behaviour,
                InjectOptions options);
  ~InjectHandler();
  InjectHandler(const InjectHandler&) = delete;
  InjectHandler& operator=(const InjectHandler&) = delete;

  void on_driver_api(DriverApiCallback& callback);
  // A CUDA runtime call's entry or exit (CUPTI's runtime-API domain). Only calls made inside a host
  // function matter: each is reported as one cuda-call-in-host-function with the runtime's result,
  // and the driver calls the runtime makes for it are folded into it.
  void on_runtime_api(const DriverApiCallback& callback);

  WrapMode mode() const { return mode_.load(std::memory_order_acquire); }
  OwnTimeStats* stats() const { return options_.stats; }
  // Runs the self-test in `context` unless one already ran, and decides the mode. Normally called
  // by the handler itself at the exit of the first call that makes a context, or at the first wrap.
  WrapMode ensure_self_test(CUcontext context);

  // Stream launches whose records are not finished yet (queued, running, or never run).
  std::size_t records_in_flight() const { return record_pool_.in_flight(); }
  // How many host functions the calling thread is inside, as the handler saw them begin and end
  // (marker mode can nest them): 0 outside any.
  int host_functions_running_here() const;

  // For the wrapper and the markers (wrapped_host_function.cpp), on the driver's callback thread.
  void wrapped_begin(const WrappedHostFunction& record);
  void wrapped_end(const WrappedHostFunction& record);
  // The board's pending note of a record that will not begin (its launch failed, or its markers did).
  void take_back_pending(const WrappedHostFunction& record) const;

 private:
  void on_enter(const CallClass& call, DriverApiCallback& callback);
  void on_exit(const CallClass& call, DriverApiCallback& callback);
  // What a call that returned CUDA_SUCCESS changed (events recorded, streams gone, captures, ...).
  void note_success(const CallClass& call, DriverApiCallback& callback);
  bool reported(const CallClass& call) const;
  // A driver call the runtime makes for the runtime call on top of this thread's frames.
  void note_runtime_driver_call(const CallClass& call, const DriverApiCallback& callback);
  void enter_runtime_call(RuntimeCallFrame& frame, DriverCallEnter event);
  DriverCallEnter describe_call(const CallClass& call, const DriverApiCallback& callback) const;
  void wrap_stream_launch(const CallClass& call, DriverApiCallback& callback);
  void finish_stream_launch(const CallClass& call, DriverApiCallback& callback);
  void report_enqueued(const WrappedHostFunction& record);
  void note_pending(const WrappedHostFunction& record) const;
  void wrap_graph_node(const CallClass& call, DriverApiCallback& callback);
  void rewrite_self_test_launch(DriverApiCallback& callback);
  WrappedHostFunction* make_record(CUhostFn function, void* user_data, Handle context,
                                   std::optional<Handle> stream, bool one_shot);
  bool stream_is_capturing(CUstream stream) const;
  const HostFunctionCode& code_of(CUhostFn function);
  void announce_mode(WrapMode mode, std::string_view why);
  void send_begin(const WrappedHostFunction& record, HandlerThreadState& thread);
  bool adds_nothing(const WrappedHostFunction& record, const HandlerThreadState& thread) const;
  void send_held_back_begin(HandlerThreadState& thread);

  Sanitizer& sanitizer_;
  const InjectedDriver driver_;
  InjectOptions options_;
  CallClassCache classes_;
  CallClassCache runtime_classes_{DriverBehaviour{}};  // by runtime callback id
  CompletionWaits waits_;
  std::atomic<WrapMode> mode_{WrapMode::undecided};
  // Stream captures begun and not yet ended, process-wide: while none is, no launch can be captured
  // and the per-launch cuStreamIsCapturing query is skipped.
  std::atomic<int> captures_in_progress_{0};
  std::mutex self_test_mutex_;  // one self-test; later callers wait for its verdict
  std::atomic<bool> self_test_wrapper_ran_{false};
  std::atomic<bool> self_test_function_ran_{false};
  // Bumped before a stream or context is destroyed in the Sanitizer (its pseudo-locks and edges go):
  // a thread's last sent begin from before then no longer stands for what the model holds.
  std::atomic<std::uint64_t> model_epoch_{0};
  WrappedHostFunction self_test_record_;  // what the self-test's launch is rewritten to run

  // Tells this handler's entries in code_of's thread-local cache from those of an earlier handler
  // at the same address.
  const std::uint64_t instance_;
  std::mutex records_mutex_;
  std::vector<std::unique_ptr<WrappedHostFunction>> lasting_records_;  // graph nodes, captures
  RecordPool record_pool_;  // one-shot records (stream launches)
  HostFunctionIdentities identities_;  // what code_of answers
};

}  // namespace gilsan::checkers::inject
