// The fixtures of the injection library's tests (test_inject_handler.cpp, test_inject_records.cpp):
// an InjectHandler fed synthetic CUPTI callbacks around real calls into the simulated driver, in each
// of the configurations the tests need.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cupti_runtime_cbid.h>

#include "checkers/inject/inject_handler.h"
#include "checkers/sources/profile_behaviour.h"
#include "tests/checkers/fake_cupti.h"
#include "tests/checkers/sim_session.h"
#include "tests/checkers/source_test_support.h"

// Not in an anonymous namespace: GoogleTest wants one fixture class per test suite, and the suites
// span both test files.
namespace gilsan::checkers::testing {

// A CUDA runtime call (CUPTI's runtime-API domain) and the runtime's answer when it refuses.
inline constexpr std::uint32_t kCudaMalloc = CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020;
inline constexpr int kCudaErrorNotPermitted = 800;

using inject::InjectHandler;
using inject::WrapMode;

inline SimCalls sim_calls() {
  const DriverTable& d = SimSession::get().driver();
  SimCalls calls;
  calls.launch_host_func = d.cuLaunchHostFunc;
  calls.stream_create = d.cuStreamCreate;
  calls.stream_synchronize = d.cuStreamSynchronize;
  calls.stream_destroy = d.cuStreamDestroy;
  calls.stream_is_capturing = d.cuStreamIsCapturing;
  calls.context_push = d.cuCtxPushCurrent;
  calls.context_pop = d.cuCtxPopCurrent;
  calls.context_get_current = d.cuCtxGetCurrent;
  calls.context_synchronize = d.cuCtxSynchronize;
  calls.primary_context_retain = d.cuDevicePrimaryCtxRetain;
  calls.mem_alloc = d.cuMemAlloc;
  calls.mem_free = d.cuMemFree;
  calls.graph_add_host_node = d.cuGraphAddHostNode;
  calls.get_error_name = d.cuGetErrorName;
  calls.begin_capture = d.cuStreamBeginCapture;
  calls.end_capture = d.cuStreamEndCapture;
  return calls;
}

// Whether the test's main thread "holds the GIL" for the handler's GIL probe.
inline thread_local bool t_holds_gil = false;

// The handler's own end markers refused on demand, as a driver refuses a launch into a stream that
// broke between the application's launch and the marker's.
// With g_refuse_after set, the refusal waits until it is true (the begin marker and the application's
// function have run on an idle stream), so that the exit callback comes second.
inline std::atomic<bool> g_refuse_end_markers{false};
inline std::atomic<bool>* g_refuse_after = nullptr;
inline decltype(&::cuLaunchHostFunc) g_launch_behind_refusals = nullptr;
inline CUresult launch_refusing_end_markers(CUstream stream, CUhostFn function, void* data) {
  if (function == &inject::run_end_marker && g_refuse_end_markers.load()) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (g_refuse_after != nullptr && !g_refuse_after->load() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  return g_launch_behind_refusals(stream, function, data);
}

class InjectHandlerTest : public ::testing::Test {
 public:
  explicit InjectHandlerTest(bool honour_rewrites = true, std::string_view suppressions = "", bool stacks = false,
                             inject::OwnTimeStats* stats = nullptr, bool report_enqueued = true,
                             bool refusable_end_markers = false)
      : recording_(suppressions, stacks), cupti_(sim_calls(), honour_rewrites) {
    SimSession::get().make_current();
    inject::InjectOptions options;
    options.error_names = ErrorNames([](int code) -> const char* {
      const char* name = nullptr;
      return SimSession::get().driver().cuGetErrorName(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name
                                                                                                  : nullptr;
    });
    options.holds_gil = [] { return std::optional<bool>(t_holds_gil); };
    options.runtime_error_name = [](int code) -> std::string_view {
      return code == 800 ? "cudaErrorNotPermitted" : code == 0 ? "cudaSuccess" : "";
    };
    options.announce = [this](std::string_view line) { announced_.emplace_back(line); };
    options.stats = stats;
    options.report_enqueued = report_enqueued;
    inject::InjectedDriver driver = cupti_.injected_driver();
    if (refusable_end_markers) {
      g_launch_behind_refusals = driver.launch_host_func;
      driver.launch_host_func = launch_refusing_end_markers;
    }
    handler_ = std::make_unique<InjectHandler>(*recording_.sanitizer, driver,
                                               behaviour_from_profile(load_profile_for_sources()),
                                               std::move(options));
    cupti_.attach(handler_.get());
  }
  ~InjectHandlerTest() override { cupti_.attach(nullptr); }

  // The application's first context call: the handler runs its self-test at its exit.
  void start_application() {
    CUcontext context = nullptr;
    ASSERT_EQ(CUDA_SUCCESS, cupti_.primary_context_retain(&context, SimSession::get().device()));
    EXPECT_EQ(SimSession::get().context(), context);
  }
  void gil_held_synchronize(CUstream stream) {
    t_holds_gil = true;
    EXPECT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream));
    t_holds_gil = false;
  }

  RecordingSanitizer recording_;
  FakeCupti cupti_;
  std::unique_ptr<InjectHandler> handler_;
  std::vector<std::string> announced_;
};

class RewritingDriver : public InjectHandlerTest {};

class DriverIgnoringRewrites : public InjectHandlerTest {
 protected:
  DriverIgnoringRewrites() : InjectHandlerTest(false) {}
};

class RefusedEndMarkers : public InjectHandlerTest {
 protected:
  explicit RefusedEndMarkers(bool report_enqueued = true)
      : InjectHandlerTest(false, "", false, nullptr, report_enqueued, true) {}
  ~RefusedEndMarkers() override {
    g_refuse_end_markers = false;
    g_refuse_after = nullptr;
  }
};

// The injected library's defaults (no host_function_enqueued: repeated begins are held back by the
// callback thread, InjectHandler::wrapped_begin), marker mode.
class RefusedEndMarkersDefaults : public RefusedEndMarkers {
 protected:
  RefusedEndMarkersDefaults() : RefusedEndMarkers(false) {}
};

class SuppressingInjectTest : public InjectHandlerTest {
 protected:
  SuppressingInjectTest() : InjectHandlerTest(true, "lock-order-cycle:*run_lambda(void*)\n") {}
};

// As libgilsan_inject.so runs by default: gil-held-blocking-call off, so no host_function_enqueued,
// and repeated host functions skip the Sanitizer (InjectHandler::wrapped_begin).
class InjectedDefaults : public InjectHandlerTest {
 protected:
  InjectedDefaults() : InjectHandlerTest(true, "", false, nullptr, false) {}
};

class StackCapturingInjectTest : public InjectHandlerTest {
 protected:
  StackCapturingInjectTest() : InjectHandlerTest(true, "", true) {}
};

class TimedInjectTest : public InjectHandlerTest {
 protected:
  TimedInjectTest() : InjectHandlerTest(true, "", false, &stats_) {}
  inline static inject::OwnTimeStats stats_;
};

}  // namespace gilsan::checkers::testing
