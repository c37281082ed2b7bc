// The start-up self-test of the argument rewrite, and the choice between the two wrapping modes.
//
// Rewriting cuLaunchHostFunc's arguments from a CUPTI API-entry callback worked on driver
// 580.159.04, but nothing documents that the driver reads its arguments after the callback. So the
// first time a context exists, the handler enqueues one host function of its own on a private
// stream, lets its callback rewrite it like any other, and synchronizes: if our wrapper ran, the
// rewrite takes; if the original function ran instead, the driver ignores rewritten arguments and
// the handler falls back to marker host functions around each user host function.
#include <cstdint>
#include <string>

#include "checkers/inject/call_params.h"
#include "checkers/inject/handler_thread_state.h"
#include "checkers/inject/inject_handler.h"

namespace gilsan::checkers::inject {
namespace {

void CUDA_CB self_test_function(void* ran) { static_cast<std::atomic<bool>*>(ran)->store(true); }

class SelfTestScope {
 public:
  SelfTestScope() { ++handler_thread_state().self_test; }
  ~SelfTestScope() { --handler_thread_state().self_test; }
  SelfTestScope(const SelfTestScope&) = delete;
  SelfTestScope& operator=(const SelfTestScope&) = delete;
};

}  // namespace

void InjectHandler::rewrite_self_test_launch(DriverApiCallback& callback) {
  const LaunchHostFuncArgs args = launch_host_func_args(callback.params);
  if (handler_thread_state().self_test == 0 || *args.function != self_test_function) return;
  self_test_record_.handler = this;
  self_test_record_.user_function = *args.function;
  self_test_record_.user_data = *args.user_data;
  self_test_record_.one_shot = false;
  self_test_record_.self_test = true;
  *args.function = run_wrapped_host_function;
  *args.user_data = &self_test_record_;
}

WrapMode InjectHandler::ensure_self_test(CUcontext context) {
  // Never wait for another thread's self-test: the waiter may be the callback thread that test
  // needs. Until the verdict, a launch takes the marker path, which works either way.
  std::unique_lock lock(self_test_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || mode() != WrapMode::undecided) return mode();
  if (!driver_.complete()) {
    announce_mode(WrapMode::markers, "self-test impossible: driver entry points missing");
    return mode();
  }
  if (context == nullptr) return mode();  // no context yet: try again at the next chance

  std::string failed;
  auto step = [&](const char* what, CUresult result) {
    if (result != CUDA_SUCCESS && failed.empty()) {
      failed = std::string(what) + " returned " + std::string(options_.error_names.name(result));
    }
    return result == CUDA_SUCCESS;
  };
  {
    SelfTestScope testing;
    QuietScope quiet;
    // A capture in progress on this thread must not see the test's private stream and sync.
    CUstreamCaptureMode capture_mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    const bool exchanged = step("cuThreadExchangeStreamCaptureMode", driver_.exchange_capture_mode(&capture_mode));
    if (step("cuCtxPushCurrent", driver_.context_push(context))) {
      CUstream stream = nullptr;
      if (step("cuStreamCreate", driver_.stream_create(&stream, CU_STREAM_NON_BLOCKING))) {
        step("cuLaunchHostFunc", driver_.launch_host_func(stream, self_test_function, &self_test_function_ran_));
        step("cuStreamSynchronize", driver_.stream_synchronize(stream));
        step("cuStreamDestroy", driver_.stream_destroy(stream));
      }
      CUcontext popped = nullptr;
      step("cuCtxPopCurrent", driver_.context_pop(&popped));
    }
    if (exchanged) driver_.exchange_capture_mode(&capture_mode);
  }
  if (self_test_wrapper_ran_.load()) {
    announce_mode(WrapMode::rewrite, "self-test passed: the driver runs rewritten launch arguments");
  } else if (self_test_function_ran_.load()) {
    announce_mode(WrapMode::markers, "self-test: the driver ignored rewritten launch arguments");
  } else {
    announce_mode(WrapMode::markers, "self-test failed: " + (failed.empty() ? std::string("no host function ran") : failed));
  }
  return mode();
}

void InjectHandler::announce_mode(WrapMode mode, std::string_view why) {
  mode_.store(mode, std::memory_order_release);
  if (!options_.announce) return;
  std::string line = "gilsan: injected, ";
  line += mode == WrapMode::rewrite
              ? "rewrite mode: each host function runs inside gilsan's wrapper"
              : "marker mode: marker host functions around each stream host function; graph host nodes are not seen";
  line += " (";
  line.append(why);
  line += ")";
  options_.announce(line);
}

}  // namespace gilsan::checkers::inject
