// The forwarding driver loaded in front of the simulated driver (GILSAN_REAL_LIBCUDA names the sim), as
// `gilsan run` puts it in front of the real one: every call reaches the driver behind it, watched calls
// and host functions reach the observer, and what the application gets back is its own. On a GPU
// machine, GILSAN_REAL_LIBCUDA=/path/to/libcuda.so.1 runs the same tests in front of the real driver.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "harness/driverhooks/driver_observer.h"

namespace {

// What the observer saw, in order.
struct Recorded {
  std::mutex mutex;
  std::vector<std::string> calls;  // "enter cuLaunchHostFunc", "exit cuLaunchHostFunc 0"
  std::vector<unsigned long long> enqueued, begun, ended;
  std::vector<const void*> enqueued_user_data;
};
Recorded g_recorded;

GilsanSimObserver recording_observer() {
  GilsanSimObserver observer{};
  observer.abi_version = GILSAN_SIM_OBSERVER_ABI;
  observer.api_enter = [](void*, const GilsanSimApiCall* call) {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.calls.push_back(std::string("enter ") + call->entry_point);
  };
  observer.api_exit = [](void*, const GilsanSimApiCall* call, CUresult result) {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.calls.push_back(std::string("exit ") + call->entry_point + " " + std::to_string(result));
  };
  observer.host_function_enqueued = [](void*, const GilsanSimHostFunction* run) {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.enqueued.push_back(run->id);
    g_recorded.enqueued_user_data.push_back(run->user_data);
  };
  observer.host_function_begin = [](void*, const GilsanSimHostFunction* run) {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.begun.push_back(run->id);
  };
  observer.host_function_end = [](void*, const GilsanSimHostFunction* run) {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.ended.push_back(run->id);
  };
  return observer;
}

template <typename Function>
Function entry(void* library, const char* name) {
  auto function = reinterpret_cast<Function>(::dlsym(library, name));
  if (function == nullptr) ADD_FAILURE() << name << " is not exported";
  return function;
}

std::atomic<int> g_runs{0};
void CUDA_CB count_run(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

class ForwardingDriver : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("GILSAN_REAL_LIBCUDA", GILSAN_SIM_LIBRARY, /*overwrite=*/0);
    library_ = ::dlopen(GILSAN_CUDASHIM_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << ::dlerror();
    static const GilsanSimObserver observer = recording_observer();
    ASSERT_EQ(entry<CUresult (*)(const GilsanSimObserver*)>(library_, "gilsanSimSetObserver")(&observer), CUDA_SUCCESS);
    ASSERT_EQ(entry<decltype(&::cuInit)>(library_, "cuInit")(0), CUDA_SUCCESS);
    CUdevice device = 0;
    ASSERT_EQ(entry<decltype(&::cuDeviceGet)>(library_, "cuDeviceGet")(&device, 0), CUDA_SUCCESS);
    CUcontext context = nullptr;
    ASSERT_EQ(entry<decltype(&::cuDevicePrimaryCtxRetain)>(library_, "cuDevicePrimaryCtxRetain")(&context, device),
              CUDA_SUCCESS);
    ASSERT_EQ(entry<decltype(&::cuCtxSetCurrent)>(library_, "cuCtxSetCurrent")(context), CUDA_SUCCESS);
  }
  void SetUp() override {
    std::lock_guard lock(g_recorded.mutex);
    g_recorded.calls.clear();
    g_recorded.enqueued.clear();
    g_recorded.begun.clear();
    g_recorded.ended.clear();
    g_recorded.enqueued_user_data.clear();
  }
  CUstream new_stream() {
    CUstream stream = nullptr;
    EXPECT_EQ(entry<decltype(&::cuStreamCreate)>(library_, "cuStreamCreate")(&stream, CU_STREAM_NON_BLOCKING),
              CUDA_SUCCESS);
    return stream;
  }
  void synchronize(CUstream stream) {
    EXPECT_EQ(entry<decltype(&::cuStreamSynchronize)>(library_, "cuStreamSynchronize")(stream), CUDA_SUCCESS);
  }
  static void* library_;
};
void* ForwardingDriver::library_ = nullptr;

TEST_F(ForwardingDriver, ItIsTheDriverBehindIt) {
  // An entry point the forwarding driver does not watch still reaches the simulated driver.
  int version = 0;
  ASSERT_EQ(entry<decltype(&::cuDriverGetVersion)>(library_, "cuDriverGetVersion")(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, CUDA_VERSION);
  // And one the driver behind lacks (the simulated driver exports no cuCtxGetExecAffinity) answers
  // CUDA_ERROR_NOT_FOUND rather than calling nowhere.
  if (std::string(std::getenv("GILSAN_REAL_LIBCUDA")) == GILSAN_SIM_LIBRARY) {
    CUexecAffinityParam affinity{};
    EXPECT_EQ(entry<decltype(&::cuCtxGetExecAffinity)>(library_, "cuCtxGetExecAffinity")(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
              CUDA_ERROR_NOT_FOUND);
  }
}

TEST_F(ForwardingDriver, EachHostFunctionIsEnqueuedBegunAndEndedUnderOneRunKey) {
  const CUstream stream = new_stream();
  std::atomic<int> runs{0};
  const auto launch = entry<decltype(&::cuLaunchHostFunc)>(library_, "cuLaunchHostFunc");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(launch(stream, &count_run, &runs), CUDA_SUCCESS);
  synchronize(stream);
  EXPECT_EQ(runs.load(), 3) << "the application's function ran, with its own argument";
  std::lock_guard lock(g_recorded.mutex);
  ASSERT_EQ(g_recorded.enqueued.size(), 3u);
  EXPECT_EQ(g_recorded.begun, g_recorded.ended);
  std::vector<unsigned long long> begun = g_recorded.begun, enqueued = g_recorded.enqueued;
  std::sort(begun.begin(), begun.end());
  std::sort(enqueued.begin(), enqueued.end());
  EXPECT_EQ(begun, enqueued);
  for (const void* user_data : g_recorded.enqueued_user_data) EXPECT_EQ(user_data, &runs);
  EXPECT_NE(std::find(g_recorded.calls.begin(), g_recorded.calls.end(), "enter cuLaunchHostFunc"), g_recorded.calls.end());
  EXPECT_NE(std::find(g_recorded.calls.begin(), g_recorded.calls.end(), "exit cuStreamSynchronize 0"),
            g_recorded.calls.end());
}

TEST_F(ForwardingDriver, AGraphLaunchEnqueuesEachHostNodeAgainAndReadsBackTheApplicationsFunction) {
  std::atomic<int> runs{0};
  CUgraph graph = nullptr;
  ASSERT_EQ(entry<decltype(&::cuGraphCreate)>(library_, "cuGraphCreate")(&graph, 0), CUDA_SUCCESS);
  CUgraphNode node = nullptr;
  const CUDA_HOST_NODE_PARAMS params{&count_run, &runs};
  ASSERT_EQ(entry<decltype(&::cuGraphAddHostNode)>(library_, "cuGraphAddHostNode")(&node, graph, nullptr, 0, &params),
            CUDA_SUCCESS);
  CUDA_HOST_NODE_PARAMS read_back{};
  const CUresult read = entry<decltype(&::cuGraphHostNodeGetParams)>(library_, "cuGraphHostNodeGetParams")(node, &read_back);
  if (read != CUDA_ERROR_NOT_FOUND) {  // the simulated driver does not model cuGraphHostNodeGetParams
    ASSERT_EQ(read, CUDA_SUCCESS);
    EXPECT_EQ(read_back.fn, &count_run);
    EXPECT_EQ(read_back.userData, &runs);
  }
  CUgraphExec exec = nullptr;
  ASSERT_EQ(entry<decltype(&::cuGraphInstantiateWithFlags)>(library_, "cuGraphInstantiateWithFlags")(&exec, graph, 0),
            CUDA_SUCCESS);
  const CUstream stream = new_stream();
  const auto launch = entry<decltype(&::cuGraphLaunch)>(library_, "cuGraphLaunch");
  for (int i = 0; i < 2; ++i) ASSERT_EQ(launch(exec, stream), CUDA_SUCCESS);
  synchronize(stream);
  EXPECT_EQ(runs.load(), 2);
  std::lock_guard lock(g_recorded.mutex);
  ASSERT_EQ(g_recorded.enqueued.size(), 2u);
  EXPECT_EQ(g_recorded.enqueued[0], g_recorded.enqueued[1]) << "one run key per node, one enqueue per launch";
  EXPECT_EQ(g_recorded.begun, g_recorded.enqueued);
}

// The driver writes outputs into the generic node parameters (an allocation's address, a conditional
// node's body graphs): the forwarding driver must hand it the application's own structure for every kind
// of node it does not wrap. It gave a copy, and cuda.core's conditional graphs crashed under gilsan run.
TEST_F(ForwardingDriver, ANodeAddedWithGenericParametersGetsTheDriversOutputs) {
  CUgraph graph = nullptr;
  ASSERT_EQ(entry<decltype(&::cuGraphCreate)>(library_, "cuGraphCreate")(&graph, 0), CUDA_SUCCESS);
  CUgraphNodeParams params{};
  params.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  params.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  params.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  params.alloc.poolProps.location.id = 0;
  params.alloc.bytesize = 4096;
  CUgraphNode node = nullptr;
  ASSERT_EQ(entry<decltype(&::cuGraphAddNode)>(library_, "cuGraphAddNode_v2")(&node, graph, nullptr, nullptr, 0, &params),
            CUDA_SUCCESS);
  EXPECT_NE(params.alloc.dptr, 0u) << "the allocation's address did not reach the application";
  EXPECT_EQ(entry<decltype(&::cuGraphDestroy)>(library_, "cuGraphDestroy")(graph), CUDA_SUCCESS);
}

// cuda.core's test_new_node_attachment_does_not_replace_deleted_node_exec_attachment: a host node destroyed
// after one instantiation is not announced by the next, which would leave a run "lost at exit".
TEST_F(ForwardingDriver, ADestroyedHostNodeIsNotAnnouncedByLaterInstantiations) {
  std::atomic<int> runs{0};
  CUgraph graph = nullptr;
  ASSERT_EQ(entry<decltype(&::cuGraphCreate)>(library_, "cuGraphCreate")(&graph, 0), CUDA_SUCCESS);
  const auto add_host_node = entry<decltype(&::cuGraphAddHostNode)>(library_, "cuGraphAddHostNode");
  const auto instantiate = entry<decltype(&::cuGraphInstantiateWithFlags)>(library_, "cuGraphInstantiateWithFlags");
  const CUDA_HOST_NODE_PARAMS params{&count_run, &runs};
  CUgraphNode old_node = nullptr, new_node = nullptr;
  ASSERT_EQ(add_host_node(&old_node, graph, nullptr, 0, &params), CUDA_SUCCESS);
  CUgraphExec old_exec = nullptr, new_exec = nullptr;
  ASSERT_EQ(instantiate(&old_exec, graph, 0), CUDA_SUCCESS);
  ASSERT_EQ(entry<decltype(&::cuGraphDestroyNode)>(library_, "cuGraphDestroyNode")(old_node), CUDA_SUCCESS);
  ASSERT_EQ(add_host_node(&new_node, graph, nullptr, 0, &params), CUDA_SUCCESS);
  ASSERT_EQ(instantiate(&new_exec, graph, 0), CUDA_SUCCESS);
  const CUstream stream = new_stream();
  const auto launch = entry<decltype(&::cuGraphLaunch)>(library_, "cuGraphLaunch");
  ASSERT_EQ(launch(old_exec, stream), CUDA_SUCCESS);
  ASSERT_EQ(launch(new_exec, stream), CUDA_SUCCESS);
  synchronize(stream);
  EXPECT_EQ(runs.load(), 2);
  std::lock_guard lock(g_recorded.mutex);
  EXPECT_EQ(g_recorded.enqueued.size(), 2u) << "each launch announces its one host node";
  std::vector<unsigned long long> enqueued = g_recorded.enqueued, begun = g_recorded.begun;
  std::sort(enqueued.begin(), enqueued.end());
  std::sort(begun.begin(), begun.end());
  EXPECT_EQ(begun, enqueued);
}

TEST_F(ForwardingDriver, CuGetProcAddressHandsOutTheWatchedEntryPoints) {
  const auto get_proc_address = entry<decltype(&::cuGetProcAddress)>(library_, "cuGetProcAddress_v2");
  void* launch = nullptr;
  CUdriverProcAddressQueryResult status{};
  ASSERT_EQ(get_proc_address("cuLaunchHostFunc", &launch, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status),
            CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  ASSERT_NE(launch, nullptr);
  // A launch through the returned pointer is watched like one through the export.
  std::atomic<int> runs{0};
  const CUstream stream = new_stream();
  ASSERT_EQ(reinterpret_cast<decltype(&::cuLaunchHostFunc)>(launch)(stream, &count_run, &runs), CUDA_SUCCESS);
  synchronize(stream);
  EXPECT_EQ(runs.load(), 1);
  std::lock_guard lock(g_recorded.mutex);
  EXPECT_EQ(g_recorded.enqueued.size(), 1u);
  EXPECT_EQ(g_recorded.begun.size(), 1u);
}

// A query that never waits (quiet_queries.h) is not described to the observer or the board on an
// application thread, but it is inside a host function, and when it fails.
void* g_library = nullptr;
void CUDA_CB ask_for_the_context(void* answer) {
  CUcontext context = nullptr;
  *static_cast<CUresult*>(answer) = entry<decltype(&::cuCtxGetCurrent)>(g_library, "cuCtxGetCurrent")(&context);
}

TEST_F(ForwardingDriver, AQueryIsWatchedOnlyInsideAHostFunctionOrWhenItFails) {
  g_library = library_;
  const auto seen = [](const std::string& call) {
    std::lock_guard lock(g_recorded.mutex);
    return std::count(g_recorded.calls.begin(), g_recorded.calls.end(), call);
  };
  CUcontext context = nullptr;
  ASSERT_EQ(entry<decltype(&::cuCtxGetCurrent)>(library_, "cuCtxGetCurrent")(&context), CUDA_SUCCESS);
  EXPECT_NE(context, nullptr) << "the query still reached the driver behind";
  EXPECT_EQ(seen("enter cuCtxGetCurrent"), 0) << "an application thread's query is not watched";

  CUdevice device = 0;
  const CUresult refused = entry<decltype(&::cuDeviceGet)>(library_, "cuDeviceGet")(&device, 1 << 20);
  ASSERT_NE(refused, CUDA_SUCCESS);
  EXPECT_EQ(seen("enter cuDeviceGet"), 1) << "a failed query is reported, after the fact";
  EXPECT_EQ(seen("exit cuDeviceGet " + std::to_string(refused)), 1);

  const CUstream stream = new_stream();
  CUresult answer = CUDA_ERROR_UNKNOWN;
  ASSERT_EQ(entry<decltype(&::cuLaunchHostFunc)>(library_, "cuLaunchHostFunc")(stream, &ask_for_the_context, &answer),
            CUDA_SUCCESS);
  synchronize(stream);
  EXPECT_NE(answer, CUDA_ERROR_UNKNOWN) << "the host function ran";
  EXPECT_EQ(seen("enter cuCtxGetCurrent"), 1) << "a host function's query is watched, whatever it answers";
}

}  // namespace
