// Helpers for feeding the Sanitizer event sequences that read like the scenario they model.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/core/sanitizer.h"

namespace gilsan::checkers::testing {

inline constexpr ThreadId kMain = 100;
inline constexpr ThreadId kWorker = 200;
inline constexpr ThreadId kCallback = 300;   // the callback thread of kContext
inline constexpr ThreadId kCallback2 = 301;  // the callback thread of kContext2
inline constexpr Handle kContext = 0xc1;
inline constexpr Handle kContext2 = 0xc2;
inline constexpr Handle kStream1 = 0x5001;
inline constexpr Handle kStream2 = 0x5002;
inline constexpr Handle kStream3 = 0x5003;  // a stream of kContext2

// A sink that keeps what it gets, for assertions.
class RecordingSink : public ReportSink {
 public:
  void on_report(const Report& report) override {
    std::lock_guard lock(mutex_);
    reports_.push_back(report);
  }
  void on_finish(const RunSummary& summary) override {
    std::lock_guard lock(mutex_);
    summaries_.push_back(summary);
  }
  std::vector<Report> reports() const {
    std::lock_guard lock(mutex_);
    return reports_;
  }
  std::vector<RunSummary> summaries() const {
    std::lock_guard lock(mutex_);
    return summaries_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Report> reports_;
  std::vector<RunSummary> summaries_;
};

// The driver profile measured on 580.159.04 (../shared/facts/driver-h200-580.md), as far as the
// tests need it: these calls block while a host function runs, and these are refused inside one.
inline DriverBehaviour measured_driver() {
  DriverBehaviour driver;
  driver.blocks_while_host_function_runs = [](std::string_view entry_point) {
    static const std::set<std::string_view> blocking = {"cuMemAlloc", "cuMemFree", "cuMemAllocHost",
                                                        "cuModuleLoadData", "cuCtxCreate"};
    return blocking.contains(entry_point);
  };
  driver.refused_in_host_function = [](std::string_view entry_point) {
    static const std::set<std::string_view> refused = {"cuCtxSynchronize", "cuMemAlloc",
                                                       "cuMemFree", "cuCtxGetCurrent"};
    return refused.contains(entry_point);
  };
  return driver;
}

struct Harness {
  explicit Harness(Options options = Options(), Suppressions suppressions = Suppressions())
      : sink(std::make_shared<RecordingSink>()),
        sanitizer(
            SanitizerConfig{options, measured_driver(), std::move(suppressions), {sink}, {}}) {}

  std::vector<Report> reports_of(Checker checker) const {
    std::vector<Report> found;
    for (const Report& report : sanitizer.reports()) {
      if (report.checker == checker) found.push_back(report);
    }
    return found;
  }
  std::vector<Report> cycles() const { return reports_of(Checker::lock_order_cycle); }

  // A driver call that returns `result`.
  void call(ThreadId thread, std::string_view entry_point, Handle context,
            std::optional<Handle> stream, std::optional<bool> holds_gil, CompletionWait waits,
            int result = kCudaSuccess, Stack stack = {}) {
    sanitizer.driver_call_enter({.thread = thread,
                                 .entry_point = entry_point,
                                 .context = context,
                                 .stream = stream,
                                 .holds_gil = holds_gil,
                                 .waits = std::move(waits),
                                 .stack = std::move(stack)});
    sanitizer.driver_call_exit({.thread = thread,
                                .entry_point = entry_point,
                                .result = result,
                                .result_name = result == kCudaSuccess ? "CUDA_SUCCESS"
                                               : result == kCudaErrorNotPermitted
                                                   ? "CUDA_ERROR_NOT_PERMITTED"
                                                   : ""});
  }
  void sync_stream(ThreadId thread, Handle stream, bool holds_gil, Stack stack = {},
                   Handle context = kContext) {
    call(thread, "cuStreamSynchronize", context, stream, holds_gil, {.streams = {stream}},
         kCudaSuccess, std::move(stack));
  }

  static HostFunction host_function(HostFunctionKind kind, Handle stream, std::string callable,
                                    Handle context = kContext, std::uint64_t id = 0) {
    return HostFunction{.id = id,
                        .kind = kind,
                        .implementation = "gilsan",
                        .callable = std::move(callable),
                        .context = context,
                        .stream = stream};
  }
  void begin(ThreadId thread, const HostFunction& host_function, Stack stack = {}) {
    sanitizer.host_function_begin(
        {.thread = thread, .host_function = host_function, .stack = std::move(stack)});
  }
  // A host function that runs and returns, with nothing inside it.
  void run(ThreadId thread, const HostFunction& host_function, Stack stack = {}) {
    begin(thread, host_function, std::move(stack));
    sanitizer.host_function_end(thread);
  }
  void acquire(ThreadId thread, std::uint64_t lock, std::string_view name, Stack stack = {}) {
    sanitizer.lock_acquire(
        {.thread = thread, .lock = lock, .name = name, .stack = std::move(stack)});
  }
  void take_gil(ThreadId thread) {
    sanitizer.gil_acquire_begin(thread);
    sanitizer.gil_acquired(thread);
  }

  std::shared_ptr<RecordingSink> sink;
  Sanitizer sanitizer;
};

// The kinds of a cycle's pseudo-locks, in cycle order, starting where the report starts.
inline std::vector<PseudoLockKind> kinds(const Report& report) {
  std::vector<PseudoLockKind> found;
  for (const PseudoLock& lock : report.cycle) found.push_back(lock.kind);
  return found;
}

}  // namespace gilsan::checkers::testing
