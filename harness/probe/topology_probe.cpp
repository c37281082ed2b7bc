#include "harness/probe/topology_probe.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "harness/probe/case_outcome.h"
#include "harness/probe/held_host_function.h"
#include "harness/probe/threaded_call.h"

namespace gilsan::probe {
namespace {

using Clock = std::chrono::steady_clock;

// Keys of the topology lines.
constexpr std::string_view kDevices = "devices";                  // COUNT
constexpr std::string_view kCallbackThread = "callback-thread";   // TID LABEL...
constexpr std::string_view kConcurrent = "concurrent";            // WHAT yes|no|unclear
constexpr std::string_view kCurrentContext = "callback-current-context";  // CODE CODE_NAME WHICH
constexpr std::string_view kEnqueueBlocked = "enqueue-blocked";   // PENDING
constexpr std::string_view kEnqueueNeverBlocked = "enqueue-never-blocked";  // LIMIT
constexpr std::string_view kEnqueueFailed = "enqueue-failed";     // AFTER CODE_NAME

struct StreamInContext {
  std::string label;     // for people
  std::string what;      // for the concurrency line: streams, contexts, devices
  CUstream stream = nullptr;
  CUcontext context = nullptr;
};

// Device work on a stream of any context: the kernels are loaded into the current context, so the
// stream's context is made current for the launch.
void launch_device_work_in(const ProbeFixture& f, const StreamInContext& s, Milliseconds duration) {
  CUcontext popped = nullptr;
  f.check("cuCtxPushCurrent (" + s.label + ")", f.driver.cuCtxPushCurrent(s.context));
  f.launch_device_work(s.stream, duration);
  f.check("cuCtxPopCurrent", f.driver.cuCtxPopCurrent(&popped));
}

// The streams the threads case looks at: S1 and S2 of the primary context, a stream of a second
// context on device 0 and, when there is one, a stream of device 1's primary context.
std::vector<StreamInContext> topology_streams(const ProbeFixture& f, int devices) {
  std::vector<StreamInContext> streams = {{"primary context of device 0, S1", "", f.s1, f.context},
                                          {"primary context of device 0, S2", "streams", f.s2, f.context}};
  CUcontext second = f.new_context();
  f.check("cuCtxPushCurrent (second context)", f.driver.cuCtxPushCurrent(second));
  streams.push_back({"second context on device 0", "contexts", f.new_stream(), second});
  CUcontext popped = nullptr;
  f.check("cuCtxPopCurrent", f.driver.cuCtxPopCurrent(&popped));
  if (devices >= 2) {
    CUdevice device1 = 0;
    CUcontext primary1 = nullptr;
    f.check("cuDeviceGet(1)", f.driver.cuDeviceGet(&device1, 1));
    f.check("cuDevicePrimaryCtxRetain(device 1)", f.driver.cuDevicePrimaryCtxRetain(&primary1, device1));
    f.check("cuCtxPushCurrent (device 1)", f.driver.cuCtxPushCurrent(primary1));
    streams.push_back({"primary context of device 1", "devices", f.new_stream(), primary1});
    f.check("cuCtxPopCurrent", f.driver.cuCtxPopCurrent(&popped));
  }
  return streams;
}

// A host function that notes whether the held one was running when it ran.
class ConcurrencyMarker {
 public:
  enum class Seen { NotYet, BeforeHeld, WhileHeld, AfterHeld };
  explicit ConcurrencyMarker(const HeldHostFunction& held) : held_(held) {}

  static void CUDA_CB run(void* self_pointer) {
    auto* self = static_cast<ConcurrencyMarker*>(self_pointer);
    Seen seen = Seen::BeforeHeld;
    switch (self->held_.phase()) {
      case HeldHostFunction::Phase::Pending: seen = Seen::BeforeHeld; break;
      case HeldHostFunction::Phase::Running: seen = Seen::WhileHeld; break;
      case HeldHostFunction::Phase::Returned: seen = Seen::AfterHeld; break;
    }
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->seen_ = seen;
    self->changed_.notify_all();
  }
  Seen wait_until(Clock::time_point until) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_until(lock, until, [&] { return seen_ != Seen::NotYet; });
    return seen_;
  }

 private:
  const HeldHostFunction& held_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Seen seen_ = Seen::NotYet;
};

void threads_case(const ProbeFixture& f, const ProbeTimeouts& timeouts, const CaseReporter& reporter) {
  int devices = 0;
  f.check("cuDeviceGetCount", f.driver.cuDeviceGetCount(&devices));
  reporter.line(kDevices, {std::to_string(devices)});
  std::vector<StreamInContext> streams = topology_streams(f, devices);

  // Which thread runs each stream's host functions, one at a time, with nothing else running.
  // Host functions and markers are never freed: the driver may run one until the process ends.
  for (const StreamInContext& s : streams) {
    auto* marker = new MarkerHostFunction;
    f.check("cuLaunchHostFunc (" + s.label + ")", marker->enqueue(f.driver, s.stream));
    if (!marker->wait_until_ran(timeouts.case_limit))
      throw SetupFailure("a host function on " + s.label + " to run", CUDA_ERROR_UNKNOWN, "no-run");
    reporter.line(kCallbackThread, {std::to_string(marker->thread_id()), s.label});
  }

  // What runs while a host function is held on S1. Everything is enqueued before that host function
  // can start (it waits behind device work), so that no enqueue is made while it runs: the outside
  // matrix measures whether the driver holds enqueues back, this measures who runs. The other
  // streams' markers wait behind twice as much device work, so they become ready while it is held.
  const Milliseconds gate = timeouts.gate_work;
  auto* held = new HeldHostFunction;
  std::vector<ConcurrencyMarker*> markers;
  f.launch_device_work(f.s1, gate);
  f.check("cuLaunchHostFunc (the held host function)", held->enqueue(f.driver, f.s1));
  for (std::size_t i = 1; i < streams.size(); ++i) {
    launch_device_work_in(f, streams[i], gate * 2);
    markers.push_back(new ConcurrencyMarker(*held));
    f.check("cuLaunchHostFunc (" + streams[i].label + ")",
            f.driver.cuLaunchHostFunc(streams[i].stream, &ConcurrencyMarker::run, markers.back()));
  }
  auto enqueued = Clock::now();
  if (!held->wait_until_running(timeouts.case_limit))
    throw SetupFailure("the held host function to start", CUDA_ERROR_UNKNOWN, "no-start");
  auto until = enqueued + gate * 2 + timeouts.concurrency_window;
  std::vector<ConcurrencyMarker::Seen> seen;
  for (ConcurrencyMarker* marker : markers) seen.push_back(marker->wait_until(until));
  held->release();
  for (std::size_t i = 0; i < markers.size(); ++i) {
    if (seen[i] == ConcurrencyMarker::Seen::NotYet)
      seen[i] = markers[i]->wait_until(Clock::now() + timeouts.concurrency_window * 20);
    const char* answer = seen[i] == ConcurrencyMarker::Seen::WhileHeld   ? "yes"
                         : seen[i] == ConcurrencyMarker::Seen::AfterHeld ? "no"
                                                                          : "unclear";
    reporter.line(kConcurrent, {streams[i + 1].what, answer});
  }
}

void callback_context_case(const ProbeFixture& f, const ProbeTimeouts& timeouts, const CaseReporter& reporter) {
  struct Probe {
    const ProbeFixture* f;
    const CaseReporter* reporter;
    Milliseconds deadline;
    std::mutex mutex;
    std::condition_variable changed;
    bool done = false;
    CUresult code = CUDA_SUCCESS;
    CUcontext seen = nullptr;
  } probe{&f, &reporter, timeouts.inside_hang};
  auto run = [](void* p) {
    auto* probe = static_cast<Probe*>(p);
    probe->reporter->line(key::kHostFunctionRunning);
    probe->reporter->line(key::kDeadline, {std::to_string(probe->deadline.count())});
    probe->reporter->line(key::kCallStarted);
    CUcontext seen = nullptr;
    CUresult code = probe->f->driver.cuCtxGetCurrent(&seen);
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->code = code;
    probe->seen = seen;
    probe->done = true;
    probe->changed.notify_all();
  };
  f.check("cuLaunchHostFunc", f.driver.cuLaunchHostFunc(f.s1, run, &probe));
  std::unique_lock<std::mutex> lock(probe.mutex);
  probe.changed.wait(lock, [&] { return probe.done; });
  const char* which = probe.code != CUDA_SUCCESS  ? "-"
                      : probe.seen == nullptr     ? "none"
                      : probe.seen == f.context   ? "the-host-function's-context"
                                                  : "another-context";
  reporter.line(kCurrentContext, {std::to_string(static_cast<int>(probe.code)), f.name(probe.code), which});
}

void enqueue_depth_case(const ProbeFixture& f, const ProbeTimeouts& timeouts, int limit, const CaseReporter& reporter) {
  auto* held = new HeldHostFunction;  // never freed: the driver may run it until the process ends
  f.check("cuLaunchHostFunc (the held host function)", held->enqueue(f.driver, f.s1));
  if (!held->wait_until_running(timeouts.case_limit))
    throw SetupFailure("the held host function to start", CUDA_ERROR_UNKNOWN, "no-start");

  std::atomic<int> enqueued{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
  std::atomic<int> failure{CUDA_SUCCESS};
  ThreadedCall worker(f, [&]() -> CUresult {
    for (int i = 0; i < limit && !stop.load(); ++i) {
      CUresult rc = f.driver.cuLaunchHostFunc(f.s1, do_nothing, nullptr);
      if (rc != CUDA_SUCCESS) {
        failure.store(rc);
        break;
      }
      enqueued.store(i + 1);
    }
    finished.store(true);
    return CUDA_SUCCESS;
  });
  f.check("cuCtxSetCurrent (enqueueing thread)", worker.ready());
  worker.go();
  int last = 0;
  auto last_progress = Clock::now();
  bool blocked = false;
  while (!finished.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    int now = enqueued.load();
    if (now != last) {
      last = now;
      last_progress = Clock::now();
    } else if (Clock::now() - last_progress >= timeouts.enqueue_stall) {
      blocked = !finished.load();
      break;
    }
  }
  if (blocked) {
    reporter.line(kEnqueueBlocked, {std::to_string(enqueued.load())});
  } else if (failure.load() != CUDA_SUCCESS) {
    reporter.line(kEnqueueFailed, {std::to_string(enqueued.load()), f.name(static_cast<CUresult>(failure.load()))});
  } else {
    reporter.line(kEnqueueNeverBlocked, {std::to_string(limit)});
  }
  stop.store(true);
  reporter.line(key::kDeadline, {std::to_string((timeouts.enqueue_stall * 20).count())});
  held->release();
  worker.wait();
}

std::optional<bool> yes_no(const CaseResult& result, const std::string& what) {
  for (const CaseLine& line : result.lines) {
    if (line.key != kConcurrent || line.value(0) != what) continue;
    if (line.value(1) == "yes") return true;
    if (line.value(1) == "no") return false;
  }
  return std::nullopt;
}

void read_threads(const CaseResult& result, TopologyEvidence& out) {
  if (std::string problem = setup_problem(result); !problem.empty()) out.threads_problem = problem;
  for (const CaseLine& line : result.lines) {
    if (line.key == kDevices) out.devices = std::atoi(line.value(0).c_str());
    if (line.key == kCallbackThread) {
      std::string label;
      for (std::size_t i = 1; i < line.values.size(); ++i) label += (i > 1 ? " " : "") + line.values[i];
      out.callback_threads.emplace_back(label, std::atol(line.value(0).c_str()));
    }
  }
  out.streams_concurrent = yes_no(result, "streams");
  out.contexts_concurrent = yes_no(result, "contexts");
  out.devices_concurrent = yes_no(result, "devices");
  if (out.threads_problem.empty() && (!out.streams_concurrent || !out.contexts_concurrent))
    out.threads_problem = result.has(kConcurrent) ? "a host function on another stream ran before the held one "
                                                    "started (the device-work gate was too short)"
                                                  : unfinished_case_problem(result);

  // threads: [0] S1, [1] S2, [2] second context, [3] device 1 (when present)
  const auto& t = out.callback_threads;
  if (t.size() < 3) return;
  if (t[0].second != t[1].second) {
    out.callback_thread_note = "host functions of two streams of one context ran on different threads, so "
                               "no callback-thread scope describes this driver";
    return;
  }
  if (t[0].second != t[2].second) {
    out.callback_thread = CallbackThreadScope::PerContext;
    out.callback_thread_note = "two contexts of one device: two threads";
  } else if (t.size() >= 4) {
    out.callback_thread = t[0].second == t[3].second ? CallbackThreadScope::PerProcess : CallbackThreadScope::PerDevice;
    out.callback_thread_note = t[0].second == t[3].second ? "two contexts and two devices: one thread"
                                                          : "two contexts of one device: one thread; two devices: two";
  } else {
    out.callback_thread_note = "two contexts of one device share one thread; with one device, per-device and "
                               "per-process cannot be told apart";
  }
}

void read_callback_context(const CaseResult& result, TopologyEvidence& out) {
  if (const CaseLine* line = result.find(kCurrentContext)) {
    std::string which = line->value(2);
    for (char& c : which)
      if (c == '-') c = ' ';
    out.current_context_on_callback = line->value(1) + (line->value(2) == "-" ? "" : ", current context: " + which);
    return;
  }
  if (std::string problem = setup_problem(result); !problem.empty()) {
    out.callback_context_problem = problem;
  } else if (result.has(key::kCallStarted) && result.killed_at_deadline) {
    out.current_context_on_callback = "no return (hang)";
  } else {
    out.callback_context_problem = unfinished_case_problem(result);
  }
}

void read_enqueue_depth(const CaseResult& result, TopologyEvidence& out) {
  if (const CaseLine* line = result.find(kEnqueueBlocked)) {
    int pending = std::atoi(line->value(0).c_str());
    out.enqueue_measured = pending > 0;
    if (pending > 0) {
      out.enqueue_blocks_at_depth = pending;
      out.enqueue_note = "an enqueue blocked with " + std::to_string(pending) + " host functions pending";
    } else {
      out.enqueue_note = "the first enqueue behind the running host function was already held back: the "
                         "driver holds cuLaunchHostFunc back while a host function runs (outside matrix), "
                         "so no depth can be measured";
    }
  } else if (result.has(kEnqueueNeverBlocked)) {
    out.enqueue_measured = true;
    out.enqueue_note = "no enqueue blocked up to " + result.find(kEnqueueNeverBlocked)->value(0) + " pending";
  } else if (const CaseLine* failed = result.find(kEnqueueFailed)) {
    out.enqueue_problem = "cuLaunchHostFunc failed with " + failed->value(1) + " after " + failed->value(0) + " enqueues";
  } else if (std::string problem = setup_problem(result); !problem.empty()) {
    out.enqueue_problem = problem;
  } else {
    out.enqueue_problem = unfinished_case_problem(result);
  }
}

}  // namespace

void run_topology_case(const std::string& which, const ProbeFixture& fixture, const ProbeTimeouts& timeouts,
                       int enqueue_limit, const CaseReporter& reporter) {
  if (which == kTopologyThreads) return threads_case(fixture, timeouts, reporter);
  if (which == kTopologyCallbackContext) return callback_context_case(fixture, timeouts, reporter);
  if (which == kTopologyEnqueueDepth) return enqueue_depth_case(fixture, timeouts, enqueue_limit, reporter);
  throw SetupFailure("unknown topology case '" + which + "'", CUDA_ERROR_INVALID_VALUE, "bad-case");
}

TopologyEvidence interpret_topology_cases(const CaseResult& threads, const CaseResult& callback_context,
                                          const CaseResult& enqueue_depth) {
  TopologyEvidence out;
  read_threads(threads, out);
  read_callback_context(callback_context, out);
  read_enqueue_depth(enqueue_depth, out);
  return out;
}

}  // namespace gilsan::probe
