// Stream capture, graphs and user objects.
#include <gtest/gtest.h>

#include <atomic>

#include "harness/driver/device_work.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

TEST(Capture, ReplaysAHostNodeOncePerLaunch) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  std::atomic<int> calls{0};
  // Load the test kernels before capturing: module loading is no part of a capture.
  ASSERT_CU(launch_device_work(d, stream.get(), std::chrono::microseconds(0)));
  ASSERT_CU(d.cuStreamSynchronize(stream.get()));
  ASSERT_CU(d.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  EXPECT_CU(d.cuStreamIsCapturing(stream.get(), &status));
  EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_ACTIVE, status);
  EXPECT_CU(launch_device_work(d, stream.get(), std::chrono::microseconds(100)));
  EXPECT_CU(d.cuLaunchHostFunc(stream.get(), &count_run, &calls));
  cuuint64_t id = 0;
  CUgraph capture_graph = nullptr;
  const CUgraphNode* frontier = nullptr;
  size_t frontier_size = 0;
  EXPECT_CU(d.cuStreamGetCaptureInfo(stream.get(), &status, &id, &capture_graph, &frontier, nullptr, &frontier_size));
  EXPECT_EQ(1u, frontier_size);
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuStreamEndCapture(stream.get(), &graph));
  EXPECT_EQ(capture_graph, graph);
  EXPECT_EQ(0, calls.load()) << "captured work must not run";

  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  ASSERT_CU(d.cuGraphUpload(exec, stream.get()));
  for (int i = 0; i < 7; ++i) EXPECT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(7, calls.load());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

TEST(Capture, SynchronizingACapturingStreamInvalidatesTheCapture) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(d.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  EXPECT_NE(CUDA_SUCCESS, d.cuStreamSynchronize(stream.get()));
  CUgraph graph = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, d.cuStreamEndCapture(stream.get(), &graph));
  EXPECT_EQ(nullptr, graph);
}

TEST(Graphs, RunNodesInDependencyOrder) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  CUdeviceptr words = 0;
  ASSERT_CU(d.cuMemAlloc(&words, 256 * sizeof(std::uint32_t)));
  void* pinned = nullptr;  // memcpy nodes take page-locked host memory
  ASSERT_CU(d.cuMemAllocHost(&pinned, 256 * sizeof(std::uint32_t)));
  auto* host = static_cast<std::uint32_t*>(pinned);
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));

  CUgraphNode empty = nullptr;
  ASSERT_CU(d.cuGraphAddEmptyNode(&empty, graph, nullptr, 0));
  // fill (kernel) -> copy to host (memcpy) -> check (host node)
  CUmodule module = nullptr;
  CUfunction fill = nullptr;
  ASSERT_CU(d.cuModuleLoadData(&module, test_kernels_ptx()));
  ASSERT_CU(d.cuModuleGetFunction(&fill, module, "gilsan_fill_u32"));
  unsigned int value = 7;
  unsigned long long word_count = 256;
  void* fill_params[] = {&words, &value, &word_count};
  CUDA_KERNEL_NODE_PARAMS kernel{};
  kernel.func = fill;
  kernel.gridDimX = kernel.gridDimY = kernel.gridDimZ = 1;
  kernel.blockDimX = 256;
  kernel.blockDimY = kernel.blockDimZ = 1;
  kernel.kernelParams = fill_params;
  CUgraphNode kernel_node = nullptr;
  ASSERT_CU(d.cuGraphAddKernelNode(&kernel_node, graph, &empty, 1, &kernel));
  value = 99;  // the node keeps the arguments it was given

  CUDA_MEMCPY3D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = words;
  copy.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy.dstHost = host;
  copy.WidthInBytes = 256 * sizeof(std::uint32_t);
  copy.Height = 1;
  copy.Depth = 1;
  CUgraphNode copy_node = nullptr;
  ASSERT_CU(d.cuGraphAddMemcpyNode(&copy_node, graph, &kernel_node, 1, &copy, context.get()));

  struct Check {
    std::uint32_t* host;
    std::atomic<int> good{0};
  } check{host};
  CUDA_HOST_NODE_PARAMS host_node{[](void* p) {
                                    auto* c = static_cast<Check*>(p);
                                    if (c->host[0] == 7 && c->host[255] == 7) c->good.fetch_add(1);
                                    c->host[0] = 0;  // the next launch must write it again
                                  },
                                  &check};
  CUgraphNode check_node = nullptr;
  ASSERT_CU(d.cuGraphAddHostNode(&check_node, graph, &copy_node, 1, &host_node));

  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  ASSERT_CU(d.cuGraphLaunch(exec, stream.get()));
  ASSERT_CU(d.cuGraphLaunch(exec, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(2, check.good.load());
  EXPECT_CU(d.cuGraphExecDestroy(exec));
  EXPECT_CU(d.cuGraphDestroy(graph));
  EXPECT_CU(d.cuModuleUnload(module));
  EXPECT_CU(d.cuMemFreeHost(pinned));
  EXPECT_CU(d.cuMemFree(words));
}

TEST(Graphs, HostNodeParametersChangeOnlyLaterInstantiations) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  std::atomic<int> first{0};
  std::atomic<int> second{0};
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUDA_HOST_NODE_PARAMS params{&count_run, &first};
  CUgraphNode node = nullptr;
  ASSERT_CU(d.cuGraphAddHostNode(&node, graph, nullptr, 0, &params));
  CUgraphExec before = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&before, graph, 0));
  params.userData = &second;
  ASSERT_CU(d.cuGraphHostNodeSetParams(node, &params));
  CUgraphExec after = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&after, graph, 0));
  ASSERT_CU(d.cuGraphLaunch(before, stream.get()));
  ASSERT_CU(d.cuGraphLaunch(after, stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(1, first.load());
  EXPECT_EQ(1, second.load());
  EXPECT_CU(d.cuGraphExecDestroy(before));
  EXPECT_CU(d.cuGraphExecDestroy(after));
  EXPECT_CU(d.cuGraphDestroy(graph));
}

struct Destructed {
  std::atomic<int> runs{0};
  std::mutex mutex;
  std::thread::id thread;
  static void CUDA_CB destroy(void* self) {
    auto* me = static_cast<Destructed*>(self);
    {
      std::lock_guard<std::mutex> guard(me->mutex);
      me->thread = std::this_thread::get_id();
    }
    me->runs.fetch_add(1);
  }
};

TEST(UserObjects, DestructorRunsOnceAfterTheLastGraphAndItsLaunchesAreDone) {
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  Destructed destructed;
  CUuserObject object = nullptr;
  ASSERT_CU(d.cuUserObjectCreate(&object, &destructed, &Destructed::destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));

  // A graph whose one host node is a gate, holding the object's only reference (moved in).
  Gate gate;
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  CUDA_HOST_NODE_PARAMS params{&Gate::run, &gate};
  CUgraphNode node = nullptr;
  ASSERT_CU(d.cuGraphAddHostNode(&node, graph, nullptr, 0, &params));
  ASSERT_CU(d.cuGraphRetainUserObject(graph, object, 1, CU_GRAPH_USER_OBJECT_MOVE));
  CUgraphExec exec = nullptr;
  ASSERT_CU(d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  ASSERT_CU(d.cuGraphDestroy(graph));  // the executable graph still holds a reference

  ASSERT_CU(d.cuGraphLaunch(exec, stream.get()));
  ASSERT_TRUE(gate.wait_entered());
  ASSERT_CU(d.cuGraphExecDestroy(exec));  // the launch is still running
  std::this_thread::sleep_for(kSettle);
  EXPECT_EQ(0, destructed.runs.load()) << "destructor ran before the launch that needed the object ended";

  gate.open();
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  EXPECT_TRUE(eventually([&] { return destructed.runs.load() == 1; }));
  std::this_thread::sleep_for(kSettle);
  EXPECT_EQ(1, destructed.runs.load());
  std::lock_guard<std::mutex> guard(destructed.mutex);
  EXPECT_NE(std::this_thread::get_id(), destructed.thread) << "the destructor must run on a driver thread";
}

TEST(UserObjects, ReferencesFromTheCallerAndGraphsAddUp) {
  PrimaryContext context;
  const DriverTable& d = driver();
  Destructed destructed;
  CUuserObject object = nullptr;
  ASSERT_CU(d.cuUserObjectCreate(&object, &destructed, &Destructed::destroy, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  ASSERT_CU(d.cuUserObjectRetain(object, 1));  // 3
  CUgraph graph = nullptr;
  ASSERT_CU(d.cuGraphCreate(&graph, 0));
  ASSERT_CU(d.cuGraphRetainUserObject(graph, object, 2, 0));  // 5: 3 ours, 2 the graph's
  ASSERT_CU(d.cuGraphReleaseUserObject(graph, object, 1));   // 4
  ASSERT_CU(d.cuUserObjectRelease(object, 3));                // 1: the graph's
  std::this_thread::sleep_for(kSettle);
  EXPECT_EQ(0, destructed.runs.load());
  ASSERT_CU(d.cuGraphDestroy(graph));  // 0
  EXPECT_TRUE(eventually([&] { return destructed.runs.load() == 1; }));
}

}  // namespace
}  // namespace gilsan::test
