// The sim source on real runs of the simulated driver: its observer hooks feed the Sanitizer while
// the test makes driver calls and the sim runs host functions on its callback thread.
#include <gtest/gtest.h>

#include <thread>

#include "checkers/sources/sim_source.h"
#include "tests/checkers/sim_session.h"
#include "tests/checkers/source_test_support.h"

namespace gilsan::checkers::testing {
namespace {

class SimSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const SimSession& session = SimSession::get();
    session.make_current();
    SimSourceOptions options;
    options.error_names = ErrorNames([&session](int code) -> const char* {
      const char* name = nullptr;
      return session.driver().cuGetErrorName(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name : nullptr;
    });
    source_ = std::make_unique<SimSource>(*recording_.sanitizer, std::move(options));
    const GilsanSimObserver observer = source_->observer();
    ASSERT_EQ("", install_sim_observer(session.library_path(), &observer));
  }
  void TearDown() override {
    EXPECT_EQ("", install_sim_observer(SimSession::get().library_path(), nullptr));
  }
  const DriverTable& driver() const { return SimSession::get().driver(); }
  Sanitizer& sanitizer() { return *recording_.sanitizer; }

  RecordingSanitizer recording_;
  std::unique_ptr<SimSource> source_;
};

// numba-cuda #317's shape: the callback takes the GIL and finishes long before the main thread,
// holding the GIL, synchronizes its stream. Nothing hangs; the order is reported.
TEST_F(SimSourceTest, FinishedCallbackThenGilHeldSynchronizeIsACycle) {
  SimStream stream;
  HostBody body = [&] { with_simulated_gil(sanitizer()); };
  ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get()));  // the callback is done
  EXPECT_TRUE(recording_.reports_of(Checker::lock_order_cycle).empty());

  with_simulated_gil(sanitizer(), [&] { EXPECT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get())); });
  const auto cycles = recording_.reports_of(Checker::lock_order_cycle);
  ASSERT_EQ(1u, cycles.size());
  EXPECT_EQ(DeadlockClass::gil_driver_inversion, cycles[0].deadlock_class);
  EXPECT_NE(std::string::npos, cycles[0].summary.find("the GIL")) << cycles[0].summary;
}

TEST_F(SimSourceTest, GilHeldSynchronizeOfANativeCallbackStreamIsNoCycle) {
  SimStream stream;
  HostBody body = [] {};
  ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
  with_simulated_gil(sanitizer(), [&] { EXPECT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get())); });
  EXPECT_TRUE(recording_.reports_of(Checker::lock_order_cycle).empty());
}

TEST_F(SimSourceTest, EventSynchronizeWaitsForTheStreamTheEventWasRecordedOn) {
  SimStream stream;
  CUevent event = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, driver().cuEventCreate(&event, CU_EVENT_DEFAULT));
  HostBody body = [&] { with_simulated_gil(sanitizer()); };
  ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, driver().cuEventRecord(event, stream.get()));
  with_simulated_gil(sanitizer(), [&] { EXPECT_EQ(CUDA_SUCCESS, driver().cuEventSynchronize(event)); });
  EXPECT_EQ(1u, recording_.reports_of(Checker::lock_order_cycle).size());
  EXPECT_EQ(CUDA_SUCCESS, driver().cuEventDestroy(event));
}

TEST_F(SimSourceTest, MemAllocInsideAHostFunctionIsReportedWithTheDriversResult) {
  SimStream stream;
  CUresult inside = CUDA_SUCCESS;
  HostBody body = [&] {
    CUdeviceptr pointer = 0;
    inside = driver().cuMemAlloc(&pointer, 256);
    if (inside == CUDA_SUCCESS) driver().cuMemFree(pointer);
  };
  ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_FALSE(found.empty());
  ASSERT_TRUE(found[0].call.has_value());
  EXPECT_EQ("cuMemAlloc", found[0].call->entry_point);
  EXPECT_EQ(static_cast<int>(inside), found[0].call->result);
  EXPECT_EQ(SimSession::get().result_name(inside), found[0].call->result_name);
  ASSERT_TRUE(found[0].host_function.has_value());
  EXPECT_NE(std::string::npos, found[0].host_function->callable.find("run_lambda"))
      << found[0].host_function->callable;
}

TEST_F(SimSourceTest, ASuppressedCycleIsCountedNotDelivered) {
  RecordingSanitizer suppressing("lock-order-cycle:cuStreamSynchronize\n");
  SimSource source(*suppressing.sanitizer, SimSourceOptions{});
  const GilsanSimObserver observer = source.observer();
  ASSERT_EQ("", install_sim_observer(SimSession::get().library_path(), &observer));
  SimStream stream;
  Sanitizer& sanitizer = *suppressing.sanitizer;
  HostBody body = [&] { with_simulated_gil(sanitizer); };
  ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get()));
  with_simulated_gil(sanitizer, [&] { EXPECT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get())); });
  const RunSummary summary = sanitizer.finish();
  EXPECT_TRUE(suppressing.reports_of(Checker::lock_order_cycle).empty());
  EXPECT_EQ(1u, summary.suppressed);
  EXPECT_TRUE(summary.unused_suppressions.empty());
}

// A program's own thread_local whose destructor calls the driver (cuda.core's cache of primary contexts
// releases them so, at exit) runs after the thread_locals made later, the source's among them: what the
// source keeps per thread must still be there. It was a thread_local std::vector, written after its
// destruction: the heap corruption of a cuda.core program with a graph host node behind the forwarding
// driver (ASan: heap-use-after-free; the transparency suite runs that program too).
struct SynchronizesWhenDestroyed {
  Sanitizer* sanitizer = nullptr;
  const DriverTable* driver = nullptr;
  CUstream stream = nullptr;
  ~SynchronizesWhenDestroyed() {
    if (sanitizer == nullptr) return;
    with_simulated_gil(*sanitizer, [&] { EXPECT_EQ(CUDA_SUCCESS, driver->cuStreamSynchronize(stream)); });
  }
};

TEST_F(SimSourceTest, ACallFromAThreadLocalDestructorMadeBeforeTheSourcesStateIsStillSeen) {
  SimStream stream;
  HostBody body = [&] { with_simulated_gil(sanitizer()); };
  std::thread([&] {
    thread_local SynchronizesWhenDestroyed last;  // made before the source's per-thread state
    ASSERT_EQ(CUDA_SUCCESS, driver().cuLaunchHostFunc(stream.get(), run_lambda, &body));
    ASSERT_EQ(CUDA_SUCCESS, driver().cuStreamSynchronize(stream.get()));
    last.sanitizer = &sanitizer();
    last.driver = &driver();
    last.stream = stream.get();
  }).join();
  // The destructor's GIL-holding synchronize of the Python host function's stream closed the cycle.
  EXPECT_EQ(1u, recording_.reports_of(Checker::lock_order_cycle).size());
}

}  // namespace
}  // namespace gilsan::checkers::testing
