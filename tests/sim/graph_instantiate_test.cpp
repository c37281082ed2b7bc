// cuGraphInstantiateWithParams: the instantiation cuda.core uses. It makes the same executable graph
// as cuGraphInstantiateWithFlags, reports the outcome in the parameters, and may upload the result.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

// A graph with one host node that counts its runs.
class CountingGraph {
 public:
  CountingGraph() {
    EXPECT_CU(driver().cuGraphCreate(&graph_, 0));
    CUDA_HOST_NODE_PARAMS params{&count_run, &runs};
    CUgraphNode node = nullptr;
    EXPECT_CU(driver().cuGraphAddHostNode(&node, graph_, nullptr, 0, &params));
  }
  ~CountingGraph() {
    if (graph_ != nullptr) driver().cuGraphDestroy(graph_);
  }
  CUgraph get() const { return graph_; }
  std::atomic<int> runs{0};

 private:
  CUgraph graph_ = nullptr;
};

// Parameters whose outputs hold values no instantiation would leave there.
CUDA_GRAPH_INSTANTIATE_PARAMS params_with_flags(cuuint64_t flags, CUstream upload_stream = nullptr) {
  CUDA_GRAPH_INSTANTIATE_PARAMS params{};
  params.flags = flags;
  params.hUploadStream = upload_stream;
  params.hErrNode_out = reinterpret_cast<CUgraphNode>(0x1);
  params.result_out = static_cast<CUgraphInstantiateResult>(-1);
  return params;
}

TEST(GraphInstantiateWithParams, MakesALaunchableGraphAndReportsSuccess) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CountingGraph graph;
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(0);
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithParams(&exec, graph.get(), &params));
  EXPECT_NE(nullptr, exec);
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_SUCCESS, params.result_out);
  EXPECT_EQ(nullptr, params.hErrNode_out);
  for (int i = 0; i < 5; ++i) EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(5, graph.runs.load());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
}

TEST(GraphInstantiateWithParams, UploadsIntoABusyStreamWithoutWaitingOrRunningTheGraph) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CountingGraph graph;
  Gate gate;
  ASSERT_CU(gate.launch(stream.get()));
  ASSERT_TRUE(gate.wait_entered());
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, stream.get());
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithParams(&exec, graph.get(), &params));
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_SUCCESS, params.result_out);
  // The instantiation returned while the stream was held; the upload is a point in the stream's order
  // and runs none of the graph's nodes.
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(stream.get()));
  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(0, graph.runs.load());
  EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(1, graph.runs.load());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
}

TEST(GraphInstantiateWithParams, AnInvalidGraphIsAnErrorDescribedByTheResult) {
  SIM_ONLY();  // a destroyed graph's handle is not safe to pass to the real driver
  PrimaryContext context;
  CUgraph graph = nullptr;
  ASSERT_CU(driver().cuGraphCreate(&graph, 0));
  ASSERT_CU(driver().cuGraphDestroy(graph));
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(0);
  CUgraphExec exec = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, driver().cuGraphInstantiateWithParams(&exec, graph, &params));
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_ERROR, params.result_out);
  EXPECT_EQ(nullptr, params.hErrNode_out);
}

TEST(GraphInstantiateWithParams, RefusesMissingParametersAndUnknownOrConflictingFlags) {
  PrimaryContext context;
  const DriverTable& d = driver();
  CountingGraph graph;
  CUgraphExec exec = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphInstantiateWithParams(&exec, graph.get(), nullptr));
  CUDA_GRAPH_INSTANTIATE_PARAMS unknown = params_with_flags(1ull << 40);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphInstantiateWithParams(&exec, graph.get(), &unknown));
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_ERROR, unknown.result_out);
  // cuda.h: a device launch cannot be combined with auto-free on launch.
  CUDA_GRAPH_INSTANTIATE_PARAMS conflicting =
      params_with_flags(CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, d.cuGraphInstantiateWithParams(&exec, graph.get(), &conflicting));
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_ERROR, conflicting.result_out);
}

TEST(GraphInstantiateWithParams, FlagsWithoutEffectInTheSimAreAccepted) {
  PrimaryContext context;
  Stream stream;
  CountingGraph graph;
  const cuuint64_t flags =
      CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(flags);
  CUgraphExec exec = nullptr;
  ASSERT_CU(driver().cuGraphInstantiateWithParams(&exec, graph.get(), &params));
  EXPECT_CU(driver().cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(driver().cuStreamSynchronize(stream.get()));
  EXPECT_EQ(1, graph.runs.load());
  EXPECT_CU(driver().cuGraphExecDestroy(exec));
}

TEST(GraphInstantiateWithParams, DeviceLaunchIsNotModelled) {
  SIM_ONLY();
  PrimaryContext context;
  CountingGraph graph;
  const unsigned long long unsupported_before = driver().sim.unsupported_calls();
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH);
  CUgraphExec exec = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED, driver().cuGraphInstantiateWithParams(&exec, graph.get(), &params));
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_ERROR, params.result_out);
  EXPECT_EQ(unsupported_before + 1, driver().sim.unsupported_calls());
}

TEST(GraphInstantiateWithParams, UploadIntoACapturingStreamLeavesNoExecutableGraph) {
  SIM_ONLY();  // the sim has no upload node for a capture to hold
  PrimaryContext context;
  Stream stream;
  CountingGraph graph;
  ASSERT_CU(driver().cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, stream.get());
  CUgraphExec exec = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   driver().cuGraphInstantiateWithParams(&exec, graph.get(), &params));
  EXPECT_EQ(nullptr, exec);
  EXPECT_EQ(CUDA_GRAPH_INSTANTIATE_ERROR, params.result_out);
  CUgraph captured = nullptr;
  EXPECT_CU(driver().cuStreamEndCapture(stream.get(), &captured));
  if (captured != nullptr) driver().cuGraphDestroy(captured);
}

TEST(GraphInstantiateWithParams, NeedsACurrentContext) {
  SIM_ONLY();  // what the real driver does with no current context was not measured
  PrimaryContext context;
  CountingGraph graph;
  CUresult result = CUDA_SUCCESS;
  std::thread([&] {
    CUDA_GRAPH_INSTANTIATE_PARAMS params = params_with_flags(0);
    CUgraphExec exec = nullptr;
    result = driver().cuGraphInstantiateWithParams(&exec, graph.get(), &params);
  }).join();
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_CONTEXT, result);
}

}  // namespace
}  // namespace gilsan::test
