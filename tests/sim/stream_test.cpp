// Streams, events and host functions: ordering, and who runs host functions when.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "harness/driver/device_work.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

using std::chrono::milliseconds;

TEST(Streams, RunWorkInTheOrderItWasEnqueued) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  HostFunctionLog log;
  std::vector<LoggedCall> calls;
  for (int i = 0; i < 20; ++i) calls.push_back(LoggedCall{&log, i});
  CUdeviceptr words = 0;
  ASSERT_CU(d.cuMemAlloc(&words, 64 * sizeof(std::uint32_t)));
  std::uint32_t seen = 0;
  for (int i = 0; i < 20; ++i) {
    if (i % 5 == 0) {
      EXPECT_CU(launch_device_work(d, stream.get(), std::chrono::microseconds(200)));
    }
    EXPECT_CU(d.cuLaunchHostFunc(stream.get(), &LoggedCall::run, &calls[static_cast<std::size_t>(i)]));
  }
  // The copy back reads what the kernel wrote just before it on the same stream.
  EXPECT_CU(launch_fill_u32(d, stream.get(), words, 42, 64));
  EXPECT_CU(d.cuMemcpyDtoHAsync(&seen, words + 63 * sizeof(std::uint32_t), sizeof seen, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(expected, log.order);
  EXPECT_EQ(42u, seen);
  EXPECT_CU(d.cuMemFree(words));
}

TEST(HostFunctions, OfOneContextNeverOverlapAndRunOnOneThread) {
  PrimaryContext context;
  Stream first;
  Stream second;
  Stream third(0);  // a blocking stream
  const DriverTable& d = driver();
  HostFunctionLog log;
  std::vector<LoggedCall> calls;
  for (int i = 0; i < 30; ++i) calls.push_back(LoggedCall{&log, i, milliseconds(1)});
  CUstream streams[] = {first.get(), second.get(), third.get(), nullptr};
  for (int i = 0; i < 30; ++i)
    EXPECT_CU(d.cuLaunchHostFunc(streams[i % 4], &LoggedCall::run, &calls[static_cast<std::size_t>(i)]));
  EXPECT_CU(d.cuCtxSynchronize());
  ASSERT_EQ(30u, log.threads.size());
  EXPECT_EQ(1, log.most_at_once.load());
  for (const auto& thread : log.threads) EXPECT_EQ(log.threads.front(), thread);
  EXPECT_NE(std::this_thread::get_id(), log.threads.front());
}

TEST(HostFunctions, OfOneContextWaitForTheRunningOneOnAnotherStream) {
  PrimaryContext context;
  Stream first;
  Stream second;
  const DriverTable& d = driver();
  Gate gate;
  ASSERT_CU(gate.launch(first.get()));
  ASSERT_TRUE(gate.wait_entered());
  std::atomic<bool> ran{false};
  ASSERT_CU(d.cuLaunchHostFunc(second.get(), [](void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); },
                               &ran));
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(ran.load()) << "a host function of the same context ran while another was running";
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(second.get()));
  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(second.get()));
  EXPECT_TRUE(ran.load());
}

TEST(HostFunctions, OfTwoContextsOverlap) {
  PrimaryContext primary;
  const DriverTable& d = driver();
  CUcontext created = nullptr;
  ASSERT_CU(d.cuCtxCreate(&created, nullptr, 0, 0));
  CUstream other_stream = nullptr;
  ASSERT_CU(d.cuStreamCreate(&other_stream, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(d.cuCtxSetCurrent(primary.get()));
  Stream stream;
  Gate gate;
  ASSERT_CU(gate.launch(stream.get()));
  ASSERT_TRUE(gate.wait_entered());
  Gate other_gate;
  ASSERT_CU(other_gate.launch(other_stream));
  EXPECT_TRUE(other_gate.wait_entered()) << "the second context's host function waited for the first's";
  EXPECT_NE(gate.thread(), other_gate.thread());
  gate.open();
  other_gate.open();
  EXPECT_CU(d.cuStreamSynchronize(other_stream));
  EXPECT_CU(d.cuStreamDestroy(other_stream));
  EXPECT_CU(d.cuCtxDestroy(created));
}

TEST(HostFunctions, BlockLaterWorkOnTheirStream) {
  PrimaryContext context;
  Stream stream;
  Event after;
  const DriverTable& d = driver();
  Gate gate;
  ASSERT_CU(gate.launch(stream.get()));
  ASSERT_CU(d.cuEventRecord(after.get(), stream.get()));
  HostFunctionLog log;
  LoggedCall later{&log, 1};
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &LoggedCall::run, &later));
  ASSERT_TRUE(gate.wait_entered());
  std::this_thread::sleep_for(kSettle);
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuEventQuery(after.get()));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(stream.get()));
  EXPECT_TRUE(log.order.empty());
  gate.open();
  EXPECT_CU(d.cuEventSynchronize(after.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(std::vector<int>{1}, log.order);
}

TEST(HostFunctions, NeverStartBeforeEarlierWorkOnTheirStreamEnds) {
  PrimaryContext context;
  Stream stream;
  Event before;
  const DriverTable& d = driver();
  ASSERT_CU(launch_device_work(d, stream.get(), std::chrono::milliseconds(100)));
  ASSERT_CU(d.cuEventRecord(before.get(), stream.get()));
  struct Check {
    const DriverTable* driver;
    CUevent before;
    std::atomic<int> result{-1};
  } check{&d, before.get()};
  // From inside the host function, the event recorded before it is complete (cuEventQuery is allowed).
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), [](void* p) {
    auto* c = static_cast<Check*>(p);
    c->result.store(static_cast<int>(c->driver->cuEventQuery(c->before)));
  }, &check));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(static_cast<int>(CUDA_SUCCESS), check.result.load());
}

TEST(HostFunctions, StreamCallbacksRunInOrderWithHostFunctions) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  HostFunctionLog log;
  LoggedCall first{&log, 1};
  LoggedCall third{&log, 3};
  struct Callback {
    HostFunctionLog* log;
    CUstream expected_stream;
    CUstream seen_stream = nullptr;
    CUresult seen_status = CUDA_ERROR_UNKNOWN;
  } second{&log, stream.get()};
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &LoggedCall::run, &first));
  ASSERT_CU(d.cuStreamAddCallback(stream.get(), [](CUstream s, CUresult status, void* p) {
    auto* c = static_cast<Callback*>(p);
    c->seen_stream = s;
    c->seen_status = status;
    c->log->record(2);
  }, &second, 0));
  ASSERT_CU(d.cuLaunchHostFunc(stream.get(), &LoggedCall::run, &third));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ((std::vector<int>{1, 2, 3}), log.order);
  EXPECT_EQ(stream.get(), second.seen_stream);
  EXPECT_CU(second.seen_status);
}

TEST(Streams, TheLegacyStreamWaitsForBlockingStreamsOnly) {
  PrimaryContext context;
  Stream blocking(0);
  Stream non_blocking(CU_STREAM_NON_BLOCKING);
  Event on_legacy;
  Event on_non_blocking;
  const DriverTable& d = driver();
  Gate gate;
  ASSERT_CU(gate.launch(blocking.get()));
  ASSERT_TRUE(gate.wait_entered());
  ASSERT_CU(d.cuEventRecord(on_legacy.get(), nullptr));
  ASSERT_CU(d.cuEventRecord(on_non_blocking.get(), non_blocking.get()));
  EXPECT_TRUE(eventually([&] { return d.cuEventQuery(on_non_blocking.get()) == CUDA_SUCCESS; }));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuEventQuery(on_legacy.get()));
  gate.open();
  EXPECT_CU(d.cuEventSynchronize(on_legacy.get()));
}

TEST(Streams, PerThreadDefaultStreamsAreSeparate) {
  PrimaryContext context;
  const DriverTable& d = driver();
  Gate gate;
  CUcontext current = context.get();
  // Thread A blocks its per-thread stream; thread B's per-thread stream is not behind it.
  std::thread a([&] {
    d.cuCtxSetCurrent(current);
    EXPECT_CU(gate.launch(CU_STREAM_PER_THREAD));
  });
  a.join();
  ASSERT_TRUE(gate.wait_entered());
  std::atomic<int> b_query{-1};
  std::thread b([&] {
    d.cuCtxSetCurrent(current);
    Event marker;
    EXPECT_CU(d.cuEventRecord(marker.get(), CU_STREAM_PER_THREAD));
    eventually([&] { return d.cuEventQuery(marker.get()) == CUDA_SUCCESS; });
    b_query.store(static_cast<int>(d.cuEventQuery(marker.get())));
  });
  b.join();
  EXPECT_EQ(static_cast<int>(CUDA_SUCCESS), b_query.load());
  gate.open();
  EXPECT_CU(d.cuCtxSynchronize());
}

TEST(Events, MeasureElapsedTimeAndReportCompletion) {
  PrimaryContext context;
  Stream stream;
  Event start;
  Event end;
  Event untimed(CU_EVENT_DISABLE_TIMING);
  const DriverTable& d = driver();
  EXPECT_CU(d.cuEventQuery(start.get()));  // never recorded: complete
  ASSERT_CU(d.cuEventRecord(start.get(), stream.get()));
  ASSERT_CU(launch_device_work(d, stream.get(), std::chrono::milliseconds(20)));
  ASSERT_CU(d.cuEventRecord(end.get(), stream.get()));
  ASSERT_CU(d.cuEventRecord(untimed.get(), stream.get()));
  ASSERT_CU(d.cuEventSynchronize(end.get()));
  float milliseconds = -1;
  EXPECT_CU(d.cuEventElapsedTime(&milliseconds, start.get(), end.get()));
  EXPECT_GT(milliseconds, 0.0f);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_HANDLE, d.cuEventElapsedTime(&milliseconds, start.get(), untimed.get()));
}

TEST(Streams, WaitEventOrdersWorkAcrossStreams) {
  PrimaryContext context;
  Stream producer;
  Stream consumer;
  Event produced;
  const DriverTable& d = driver();
  Gate gate;
  ASSERT_CU(gate.launch(producer.get()));
  ASSERT_CU(d.cuEventRecord(produced.get(), producer.get()));
  ASSERT_CU(d.cuStreamWaitEvent(consumer.get(), produced.get(), 0));
  Event consumed;
  ASSERT_CU(d.cuEventRecord(consumed.get(), consumer.get()));
  ASSERT_TRUE(gate.wait_entered());
  std::this_thread::sleep_for(kSettle);
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuEventQuery(consumed.get()));
  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(consumer.get()));
}

}  // namespace
}  // namespace gilsan::test
