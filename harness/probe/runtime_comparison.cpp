#include "harness/probe/runtime_comparison.h"

#include <condition_variable>
#include <mutex>

#include "harness/probe/case_outcome.h"
#include "harness/probe/cudart_library.h"
#include "harness/probe/probe_fixture.h"

namespace gilsan::probe {
namespace {

using Clock = std::chrono::steady_clock;

// The few runtime entry points the comparison needs, declared by hand: the runtime is dlopen'd, and
// its cudaStream_t is the driver's CUstream.
using RtError = int;
struct Runtime {
  std::string path;
  const char* (*get_error_name)(RtError) = nullptr;
  RtError (*set_device)(int) = nullptr;
  RtError (*stream_create_with_flags)(CUstream*, unsigned) = nullptr;
  RtError (*launch_host_func)(CUstream, void (*)(void*), void*) = nullptr;
  RtError (*stream_synchronize)(CUstream) = nullptr;
  RtError (*stream_query)(CUstream) = nullptr;
  RtError (*malloc)(void**, std::size_t) = nullptr;

  std::string name(RtError error) const {
    const char* text = get_error_name(error);
    return text != nullptr ? text : "cudaError(" + std::to_string(error) + ")";
  }
};
constexpr unsigned kRtStreamNonBlocking = 0x01;

Runtime load_runtime(const std::string& library) {
  Runtime rt;
  rt.path = load_cudart(library, [&rt](EntryPointResolver& resolver) {
    resolver.resolve("cudaGetErrorName", rt.get_error_name);
    resolver.resolve("cudaSetDevice", rt.set_device);
    resolver.resolve("cudaStreamCreateWithFlags", rt.stream_create_with_flags);
    resolver.resolve("cudaLaunchHostFunc", rt.launch_host_func);
    resolver.resolve("cudaStreamSynchronize", rt.stream_synchronize);
    resolver.resolve("cudaStreamQuery", rt.stream_query);
    resolver.resolve("cudaMalloc", rt.malloc);
  });
  return rt;
}

struct RuntimeCall {
  const Runtime* rt;
  const CaseReporter* reporter;
  std::string intent;
  CUstream own;
  CUstream other;
  Milliseconds hang_after;
  std::mutex mutex;
  std::condition_variable changed;
  bool returned = false;
  RtError result = 0;
  std::chrono::microseconds took{0};

  static void run(void* self) { static_cast<RuntimeCall*>(self)->body(); }

  void body() {
    reporter->line(key::kHostFunctionRunning);
    reporter->line(key::kDeadline, {std::to_string(hang_after.count())});
    reporter->line(key::kCallStarted);
    auto started = Clock::now();
    RtError error = 0;
    if (intent == "sync-own-stream") {
      error = rt->stream_synchronize(own);
    } else if (intent == "sync-other-stream") {
      error = rt->stream_synchronize(other);
    } else if (intent == "query-other-stream") {
      error = rt->stream_query(other);
    } else {
      void* pointer = nullptr;
      error = rt->malloc(&pointer, 1 << 20);
    }
    auto duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
    std::lock_guard<std::mutex> lock(mutex);
    result = error;
    took = duration;
    returned = true;
    changed.notify_all();
  }
};

std::string describe_runtime_case(const CaseResult& result) {
  if (const CaseLine* returned = result.find(key::kCallReturned))
    return returned->value(1) + " (" + returned->value(0) + ")";
  if (std::string problem = setup_problem(result); !problem.empty()) return "not measured: " + problem;
  if (result.has(key::kCallStarted) && result.killed_at_deadline) return "no return (hang)";
  return "not measured: " + unfinished_case_problem(result);
}

}  // namespace

const std::vector<RuntimeIntent>& runtime_intents() {
  static const std::vector<RuntimeIntent> intents = {
      {"sync-own-stream", "synchronize the host function's own stream", "cudaStreamSynchronize(own stream)",
       "cuStreamSynchronize#own-stream"},
      {"sync-other-stream", "synchronize another, idle stream", "cudaStreamSynchronize(other stream)",
       "cuStreamSynchronize"},
      {"query-other-stream", "query another, idle stream", "cudaStreamQuery(other stream)", "cuStreamQuery"},
      {"malloc", "allocate 1 MiB of device memory", "cudaMalloc(1 MiB)", "cuMemAlloc"},
  };
  return intents;
}

void run_runtime_case(const std::string& intent_id, const std::string& library, const ProbeTimeouts& timeouts,
                      const CaseReporter& reporter) {
  Runtime rt = load_runtime(library);
  reporter.note("runtime library " + rt.path);
  auto check = [&](const char* step, RtError error) {
    if (error != 0) throw SetupFailure(step, CUDA_ERROR_UNKNOWN, rt.name(error));
  };
  check("cudaSetDevice(0)", rt.set_device(0));
  auto* call = new RuntimeCall{&rt, &reporter, intent_id, nullptr, nullptr, timeouts.inside_hang};  // never freed
  check("cudaStreamCreateWithFlags", rt.stream_create_with_flags(&call->own, kRtStreamNonBlocking));
  check("cudaStreamCreateWithFlags", rt.stream_create_with_flags(&call->other, kRtStreamNonBlocking));
  check("cudaLaunchHostFunc", rt.launch_host_func(call->own, &RuntimeCall::run, call));
  std::unique_lock<std::mutex> lock(call->mutex);
  call->changed.wait(lock, [&] { return call->returned; });
  reporter.line(key::kCallReturned, {std::to_string(call->result), rt.name(call->result),
                                     std::to_string(call->took.count())});
}

std::string describe_inside_result(const InsideOutcome& outcome) {
  switch (outcome.observation) {
    case InsideObservation::Returned:
      return outcome.code ? outcome.code->name + " (" + std::to_string(outcome.code->code) + ")" : "returned";
    case InsideObservation::NoReturn: return "no return (hang)";
    case InsideObservation::WaitedForHostFunction: return "no return (waits for itself)";
    case InsideObservation::NotMeasured: return "not measured: " + outcome.problem;
  }
  return "?";
}

RuntimeComparison compare_runtime_and_driver(const std::vector<CaseResult>& runtime_results,
                                             const std::vector<const InsideOutcome*>& driver_outcomes) {
  RuntimeComparison comparison;
  const auto& intents = runtime_intents();
  bool any_measured = false;
  for (std::size_t i = 0; i < intents.size() && i < runtime_results.size(); ++i) {
    const CaseResult& result = runtime_results[i];
    RuntimeRow row;
    row.intent = &intents[i];
    row.runtime_result = describe_runtime_case(result);
    row.driver_result = driver_outcomes[i] != nullptr ? describe_inside_result(*driver_outcomes[i]) : "not probed";
    bool runtime_measured = row.runtime_result.rfind("not measured", 0) != 0;
    any_measured = any_measured || runtime_measured;
    if (const CaseLine* note = result.find(key::kNote); note != nullptr && comparison.note.empty())
      comparison.note = note->text();
    // Differs: one hangs and the other does not, or one is refused and the other is not.
    if (runtime_measured && driver_outcomes[i] != nullptr &&
        driver_outcomes[i]->observation != InsideObservation::NotMeasured) {
      bool runtime_hangs = row.runtime_result.rfind("no return", 0) == 0;
      bool driver_hangs = driver_outcomes[i]->observation != InsideObservation::Returned;
      bool runtime_refused = row.runtime_result.find("NotPermitted") != std::string::npos;
      bool driver_refused = driver_outcomes[i]->code && driver_outcomes[i]->code->code == CUDA_ERROR_NOT_PERMITTED;
      bool runtime_ok = row.runtime_result.rfind("cudaSuccess", 0) == 0;
      bool driver_ok = driver_outcomes[i]->code && driver_outcomes[i]->code->code == CUDA_SUCCESS;
      row.differs = runtime_hangs != driver_hangs || runtime_refused != driver_refused || runtime_ok != driver_ok;
    }
    comparison.rows.push_back(std::move(row));
  }
  comparison.ran = any_measured;
  if (!any_measured && !comparison.rows.empty())
    comparison.note = "no usable libcudart: " + comparison.rows.front().runtime_result;
  return comparison;
}

}  // namespace gilsan::probe
