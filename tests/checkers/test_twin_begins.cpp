// A launcher's trampoline that reports its own begin inside the driver's record of the same run (the
// gilsan module's, joined by the userData) is that run's twin (checkers/core/sanitizer_begins.cpp): it
// holds nothing the driver's record does not hold already, names the run in reports made inside it,
// and takes the GIL as a Python host function's begin does.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

constexpr std::uint64_t kTwinPayload = 0x7000;  // the userData the launcher gave the driver

// The driver's record of the run: it knows the trampoline's code, not what it runs.
HostFunction driver_record(std::uint64_t run_key) {
  HostFunction run = Harness::host_function(HostFunctionKind::native, kStream1, "gilsan+0x10");
  run.run_key = run_key;
  run.user_data = kTwinPayload;
  return run;
}

// The module's own begin of the same run: a Python callable, its payload's id.
HostFunction module_begin(Handle stream = kStream1) {
  HostFunction described = Harness::host_function(HostFunctionKind::python, stream, "s.py:3 on_done", kContext, 1);
  described.user_data = kTwinPayload;
  return described;
}

// The driver's record of run 9 and the module's begin inside it, both ended.
void run_with_its_twin(Harness& h) {
  h.begin(kCallback, driver_record(9));
  h.begin(kCallback, module_begin());
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.host_function_end(kCallback);
}

TEST(TwinBegins, ACallInsideIsMadeInTheLaunchersHostFunction) {
  Harness h;
  h.begin(kCallback, driver_record(9));
  h.begin(kCallback, module_begin());
  h.call(kCallback, "cuMemAlloc", kContext, std::nullopt, true, {}, kCudaErrorNotPermitted, {"on_done allocates"});
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.host_function_end(kCallback);
  const auto found = h.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_TRUE(found[0].host_function);
  EXPECT_EQ(found[0].host_function->callable, "s.py:3 on_done");
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u) << "every end found its begin";
}

// The driver's record does not know the run is Python, so it took no GIL: the twin takes it, while
// the run holds its stream's completion. Main, holding the GIL, then waits for that stream: a cycle.
TEST(TwinBegins, TheTwinTakesTheGilHoldingWhatTheRunHolds) {
  Harness h;
  run_with_its_twin(h);
  h.sync_stream(kMain, kStream1, /*holds_gil=*/true, {"main synchronizes"});
  EXPECT_EQ(h.cycles().size(), 1u);
}

// After both ends the callback thread holds nothing: a lock it takes outside any run is ordered after
// nothing, and main taking that lock while waiting for the stream closes no cycle.
TEST(TwinBegins, BothEndsLeaveTheThreadHoldingNothing) {
  Harness h;
  run_with_its_twin(h);
  h.acquire(kCallback, 7, "queue_lock", {"callback thread takes queue_lock"});
  h.sanitizer.lock_release(kCallback, 7);
  h.acquire(kMain, 7, "queue_lock", {"main takes queue_lock"});
  h.sync_stream(kMain, kStream1, false, {"main synchronizes"});
  h.sanitizer.lock_release(kMain, 7);
  EXPECT_TRUE(h.cycles().empty());
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
}

// A begin with the same userData on another stream is not the same run: it holds its own stream, and
// a lock it takes is ordered after that stream's completion.
TEST(TwinBegins, ABeginOnAnotherStreamIsARunOfItsOwn) {
  Harness h;
  h.begin(kCallback, driver_record(9));
  h.begin(kCallback, module_begin(kStream2));
  h.acquire(kCallback, 7, "queue_lock", {"on_done takes queue_lock"});
  h.sanitizer.lock_release(kCallback, 7);
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.host_function_end(kCallback);
  h.acquire(kMain, 7, "queue_lock", {"main takes queue_lock"});
  h.sync_stream(kMain, kStream2, false, {"main synchronizes stream 2"});
  h.sanitizer.lock_release(kMain, 7);
  EXPECT_EQ(h.cycles().size(), 1u);
}

}  // namespace
}  // namespace gilsan::checkers::testing
