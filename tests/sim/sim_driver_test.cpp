// Properties of the simulated driver itself: its exports, its configuration and its profile handling,
// the observer hooks, unsupported calls; and, on both drivers, scenarios that need a fresh process.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "harness/profile/driver_profile.h"
#include "harness/simcuda/gilsan_sim.h"
#include "tests/sim/child_process.h"
#include "tests/sim/expected_profile.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

void* sim_symbol(const char* name) {
  void* library = dlopen(driver().library_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  return library == nullptr ? nullptr : dlsym(library, name);
}

std::string shipped_profile_text() {
  std::ifstream in(GILSAN_DEFAULT_PROFILE_PATH);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(SimDriver, ResolvesEveryEntryPointOfTheTable) {
  SIM_ONLY();
  EXPECT_TRUE(driver().missing_entry_points().empty());
}

TEST(SimDriver, GetProcAddressMapsNamesToVersionedAndPerThreadSymbols) {
  SIM_ONLY();
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProc>(sim_symbol("cuGetProcAddress_v2"));
  ASSERT_NE(nullptr, get_proc);
  void* function = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
  EXPECT_EQ(CUDA_SUCCESS, get_proc("cuMemAlloc", &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT_EQ(sim_symbol("cuMemAlloc_v2"), function);
  EXPECT_EQ(CUDA_SUCCESS,
            get_proc("cuLaunchHostFunc", &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT_EQ(sim_symbol("cuLaunchHostFunc_ptsz"), function);
  EXPECT_EQ(CUDA_SUCCESS,
            get_proc("cuMemcpyHtoD", &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT_EQ(sim_symbol("cuMemcpyHtoD_v2_ptds"), function);
  // So do entry points that take a stream only inside a structure, or only to query it.
  EXPECT_EQ(CUDA_SUCCESS, get_proc("cuGraphInstantiateWithParams", &function, CUDA_VERSION,
                                   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT_EQ(sim_symbol("cuGraphInstantiateWithParams_ptsz"), function);
  EXPECT_EQ(CUDA_SUCCESS, get_proc("cuStreamGetPriority", &function, CUDA_VERSION,
                                   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT_EQ(sim_symbol("cuStreamGetPriority_ptsz"), function);
  EXPECT_EQ(CUDA_SUCCESS,
            get_proc("cuStreamGetPriority", &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT_EQ(sim_symbol("cuStreamGetPriority"), function);
  EXPECT_EQ(CUDA_ERROR_NOT_FOUND, get_proc("cuNoSuchThing", &function, CUDA_VERSION, 0, &status));
  EXPECT_EQ(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, status);
  EXPECT_EQ(nullptr, function);
  EXPECT_EQ(CUDA_ERROR_NOT_FOUND, get_proc("cuCtxCreate", &function, 11000, 0, &status));
  EXPECT_EQ(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, status);
  EXPECT_EQ(CUDA_ERROR_NOT_FOUND, get_proc("cuGraphInstantiateWithParams", &function, 11080, 0, &status));
  EXPECT_EQ(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, status);
}

TEST(SimDriver, ExportsOnlyDriverAndSimSymbols) {
  SIM_ONLY();
  EXPECT_EQ(nullptr, sim_symbol("_ZN6gilsan3sim9SimDriver8instanceEv"));
  EXPECT_NE(nullptr, sim_symbol("gilsanSimLaunchWork"));
}

// NVRTC's nvrtcCompileProgram finds cuGetExportTable with dlsym and calls it unchecked: a sim without the
// symbol crashed it. The sim refuses the call and keeps it out of cuGetProcAddress (the tables are not modeled).
TEST(SimDriver, GetExportTableIsThereOnlyToRefuse) {
  SIM_ONLY();
  using GetExportTable = CUresult (*)(const void**, const CUuuid*);
  auto get_export_table = reinterpret_cast<GetExportTable>(sim_symbol("cuGetExportTable"));
  ASSERT_NE(nullptr, get_export_table);
  const void* table = &table;
  const CUuuid id{};
  EXPECT_EQ(CUDA_ERROR_NOT_SUPPORTED, get_export_table(&table, &id));
  EXPECT_EQ(nullptr, table);
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProc>(sim_symbol("cuGetProcAddress_v2"));
  ASSERT_NE(nullptr, get_proc);
  void* function = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
  EXPECT_EQ(CUDA_ERROR_NOT_FOUND, get_proc("cuGetExportTable", &function, CUDA_VERSION, 0, &status));
  EXPECT_EQ(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, status);
}

TEST(SimDriver, CountsCallsItDoesNotModel) {
  SIM_ONLY();
  PrimaryContext context;
  const DriverTable& d = driver();
  const unsigned long long before = d.sim.unsupported_calls();
  int value = 0;
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED,
                   d.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 0));
  CUevent event = nullptr;
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_SUPPORTED, d.cuEventCreate(&event, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  EXPECT_EQ(before + 2, d.sim.unsupported_calls());
}

TEST(SimDriver, ReportsItsProfile) {
  SIM_ONLY();
  std::string source = driver().sim.profile_source();
  if (std::getenv("GILSAN_SIM_PROFILE") == nullptr) {
    EXPECT_EQ("builtin:h200-580.159.04", source);
  }
}

TEST(SimDriver, SimulatedWorkKeepsAStreamBusy) {
  SIM_ONLY();
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  ASSERT_CU(d.sim.launch_work(stream.get(), 1000000));
  EXPECT_CU_RESULT(CUDA_ERROR_NOT_READY, d.cuStreamQuery(stream.get()));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
}

// The observer sees every call enter and leave, and each host function begin and end on its thread.
struct Observed {
  std::mutex mutex;
  std::map<std::string, int> entered;
  std::map<std::string, int> left;
  std::vector<unsigned long long> begun;
  std::vector<unsigned long long> ended;
  std::thread::id callback_thread;
  bool balanced_on_callback_thread = true;
};

TEST(SimDriver, ObserverSeesCallsAndHostFunctions) {
  SIM_ONLY();
  PrimaryContext context;
  Stream stream;
  const DriverTable& d = driver();
  auto set_observer = reinterpret_cast<CUresult (*)(const GilsanSimObserver*)>(sim_symbol("gilsanSimSetObserver"));
  ASSERT_NE(nullptr, set_observer);
  Observed seen;
  GilsanSimObserver observer{};
  observer.abi_version = GILSAN_SIM_OBSERVER_ABI;
  observer.user = &seen;
  observer.api_enter = [](void* user, const GilsanSimApiCall* call) {
    auto* s = static_cast<Observed*>(user);
    std::lock_guard<std::mutex> guard(s->mutex);
    s->entered[call->entry_point] += 1;
  };
  observer.api_exit = [](void* user, const GilsanSimApiCall* call, CUresult) {
    auto* s = static_cast<Observed*>(user);
    std::lock_guard<std::mutex> guard(s->mutex);
    s->left[call->entry_point] += 1;
  };
  observer.host_function_begin = [](void* user, const GilsanSimHostFunction* f) {
    auto* s = static_cast<Observed*>(user);
    std::lock_guard<std::mutex> guard(s->mutex);
    s->begun.push_back(f->id);
    s->callback_thread = std::this_thread::get_id();
  };
  observer.host_function_end = [](void* user, const GilsanSimHostFunction* f) {
    auto* s = static_cast<Observed*>(user);
    std::lock_guard<std::mutex> guard(s->mutex);
    s->ended.push_back(f->id);
    if (s->callback_thread != std::this_thread::get_id()) s->balanced_on_callback_thread = false;
  };
  ASSERT_EQ(CUDA_SUCCESS, set_observer(&observer));
  std::atomic<int> calls{0};
  for (int i = 0; i < 3; ++i)
    EXPECT_CU(d.cuLaunchHostFunc(stream.get(), [](void* c) { static_cast<std::atomic<int>*>(c)->fetch_add(1); },
                                 &calls));
  EXPECT_CU(d.cuStreamSynchronize(stream.get()));
  ASSERT_EQ(CUDA_SUCCESS, set_observer(nullptr));
  GilsanSimObserver wrong_abi{};
  wrong_abi.abi_version = GILSAN_SIM_OBSERVER_ABI + 1;
  EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, set_observer(&wrong_abi));

  std::lock_guard<std::mutex> guard(seen.mutex);
  EXPECT_EQ(3, seen.entered["cuLaunchHostFunc"]);
  EXPECT_EQ(3, seen.left["cuLaunchHostFunc"]);
  EXPECT_EQ(1, seen.entered["cuStreamSynchronize"]);
  EXPECT_EQ(seen.begun, seen.ended);
  EXPECT_EQ(3u, seen.begun.size());
  EXPECT_TRUE(seen.balanced_on_callback_thread);
  EXPECT_NE(std::this_thread::get_id(), seen.callback_thread);
}

// Scenarios that need a driver of their own, in a child process.

TEST(SimConfiguration, MalformedProfileFailsCuInitNamingTheLine) {
  SIM_ONLY();
  ProfileFile broken("{\n  \"schema\": \"gilsan-driver-profile/1\",\n  \"origin\": {\n    oops\n  }\n}\n");
  ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_PROFILE", broken.path()}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), child.line_value("cuInit ")) << child.output();
  EXPECT_TRUE(child.line_value("last-error ").starts_with(broken.path() + ":4:")) << child.output();
  EXPECT_NE(std::string::npos, child.output().find("gilsan simulated driver: cuInit failed: " + broken.path()))
      << "the error goes to stderr once; " << child.output();
}

TEST(SimConfiguration, UnknownKeyInProfileFailsCuInitNamingTheKey) {
  SIM_ONLY();
  std::string text = shipped_profile_text();
  const std::string correct = "\"cuCtxCreate\":";
  text.replace(text.find(correct), correct.size(), "\"cuCtxCreat\":");
  ProfileFile misspelt(text);
  ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_PROFILE", misspelt.path()}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), child.line_value("cuInit ")) << child.output();
  EXPECT_NE(std::string::npos, child.line_value("last-error ").find("'cuCtxCreat'")) << child.output();
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("cuCtxCreat\"")), '\n');
  EXPECT_TRUE(child.line_value("last-error ").starts_with(misspelt.path() + ":" + std::to_string(line) + ":"))
      << child.output();
}

TEST(SimConfiguration, MissingEntryPointInProfileFailsCuInit) {
  SIM_ONLY();
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  profile.while_host_function_runs.erase("cuMemAlloc");
  ProfileFile incomplete(to_json(profile));
  ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_PROFILE", incomplete.path()}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), child.line_value("cuInit ")) << child.output();
  EXPECT_NE(std::string::npos, child.line_value("last-error ").find("missing entry point 'cuMemAlloc'"))
      << child.output();
}

TEST(SimConfiguration, BadDeviceCountFailsCuInit) {
  SIM_ONLY();
  for (const char* count : {"0", "9", "two"}) {
    ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_DEVICES", count}});
    ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
    EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), child.line_value("cuInit ")) << child.output();
    EXPECT_NE(std::string::npos, child.line_value("last-error ").find("GILSAN_SIM_DEVICES")) << child.output();
  }
}

TEST(SimConfiguration, UnknownKernelsAreNotFoundUnlessAskedToRunEmpty) {
  SIM_ONLY();
  ChildProcess strict(child_arguments({"unknown-kernel"}), {});
  ASSERT_TRUE(strict.wait_for_exit(kHangTimeout)) << strict.output();
  EXPECT_EQ(code(CUDA_ERROR_NOT_FOUND), strict.line_value("get-function ")) << strict.output();
  ChildProcess empty(child_arguments({"unknown-kernel"}), {{"GILSAN_SIM_KERNELS", "empty"}});
  ASSERT_TRUE(empty.wait_for_exit(kHangTimeout)) << empty.output();
  EXPECT_EQ(code(CUDA_SUCCESS), empty.line_value("get-function ")) << empty.output();
  EXPECT_EQ(code(CUDA_ERROR_NOT_FOUND), empty.line_value("not-in-image ")) << empty.output();
  EXPECT_EQ(code(CUDA_SUCCESS), empty.line_value("launch ")) << empty.output();
  EXPECT_EQ(code(CUDA_SUCCESS), empty.line_value("synchronize ")) << empty.output();
  EXPECT_EQ("1", empty.line_value("ran ")) << empty.output();
  ChildProcess bad(child_arguments({"unknown-kernel"}), {{"GILSAN_SIM_KERNELS", "all"}});
  ASSERT_TRUE(bad.wait_for_exit(kHangTimeout)) << bad.output();
  EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), bad.line_value("cuInit ")) << bad.output();
  EXPECT_NE(std::string::npos, bad.output().find("GILSAN_SIM_KERNELS is 'all'")) << bad.output();
}

TEST(SimConfiguration, InjectedFailuresFailTheCallsTheySay) {
  SIM_ONLY();
  ChildProcess child(child_arguments({"injected-failures"}),
                     {{"GILSAN_SIM_FAIL", "cuLaunchHostFunc=CUDA_ERROR_OUT_OF_MEMORY:after=1:count=1"}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ("0 2 0", child.line_value("launches ")) << "the second launch, only" << child.output();
  EXPECT_EQ("0", child.line_value("synchronize ")) << child.output();
  EXPECT_EQ("2", child.line_value("ran ")) << "a refused launch enqueues nothing" << child.output();
  ChildProcess numbered(child_arguments({"injected-failures"}), {{"GILSAN_SIM_FAIL", "cuLaunchHostFunc=700"}});
  ASSERT_TRUE(numbered.wait_for_exit(kHangTimeout)) << numbered.output();
  EXPECT_EQ("700 700 700", numbered.line_value("launches ")) << numbered.output();
}

TEST(SimConfiguration, AnInjectedFailureOfCuInitItselfIsReturnedByCuInit) {
  SIM_ONLY();
  ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_FAIL", "cuInit=CUDA_ERROR_NO_DEVICE"}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_NO_DEVICE), child.line_value("cuInit ")) << child.output();
}

TEST(SimConfiguration, ABadInjectedFailureFailsCuInitNamingTheItem) {
  SIM_ONLY();
  const std::pair<const char*, const char*> kBad[] = {
      {"cuLaunchHostFunk=2", "'cuLaunchHostFunk' is not an entry point"},
      {"cuLaunchHostFunc=CUDA_ERROR_BOGUS", "'CUDA_ERROR_BOGUS' is no failing CUresult"},
      {"cuLaunchHostFunc=0", "'0' is no failing CUresult"},
      {"cuLaunchHostFunc=2:after=x", "after must be a whole number"},
      {"cuLaunchHostFunc=2:count=0", "count must be at least 1"},
      {"cuLaunchHostFunc=2:every=3", "unknown option 'every=3'"},
      {"cuLaunchHostFunc=2,cuLaunchHostFunc=3", "named twice"},
      {"cuLaunchHostFunc", "expected ENTRY=RESULT"},
  };
  for (const auto& [value, message] : kBad) {
    ChildProcess child(child_arguments({"init"}), {{"GILSAN_SIM_FAIL", value}});
    ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
    EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), child.line_value("cuInit ")) << value << "\n" << child.output();
    EXPECT_NE(std::string::npos, child.line_value("last-error ").find(message)) << value << "\n" << child.output();
  }
}

TEST(SimConfiguration, TwoDevicesEachWithTheirOwnContextAndMemory) {
  SIM_ONLY();
  ChildProcess child(child_arguments({"devices"}), {{"GILSAN_SIM_DEVICES", "2"}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ("2", child.line_value("devices ")) << child.output();
  EXPECT_EQ("0", child.line_value("context-device-0 ")) << child.output();
  EXPECT_EQ("1", child.line_value("context-device-1 ")) << child.output();
  EXPECT_EQ("yes", child.line_value("devices-overlap ")) << child.output();
  EXPECT_EQ("yes", child.line_value("device-1-memory ")) << child.output();
  EXPECT_EQ(0, child.exit_code()) << child.output();
}

struct TopologyCase {
  const char* name;
  CallbackThreadScope scope;
  bool serialized;
  const char* streams_overlap;
  const char* contexts_overlap;
};

void PrintTo(const TopologyCase& topology, std::ostream* out) { *out << topology.name; }

class Topology : public ::testing::TestWithParam<TopologyCase> {};

TEST_P(Topology, DecidesWhichHostFunctionsOverlap) {
  SIM_ONLY();
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  profile.topology.callback_thread = GetParam().scope;
  profile.topology.serialized_across_streams = GetParam().serialized;
  // A host function on another stream waits for a running one exactly when the topology serializes
  // them: the enqueued-work cells follow the topology, as a /1 profile reads them.
  profile.enqueued_work = enqueued_work_from_calls(profile.while_host_function_runs, profile.topology);
  ProfileFile file(to_json(profile));
  ChildProcess child(child_arguments({"topology"}), {{"GILSAN_SIM_PROFILE", file.path()}});
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(GetParam().streams_overlap, child.line_value("streams-overlap ")) << child.output();
  EXPECT_EQ(GetParam().contexts_overlap, child.line_value("contexts-overlap ")) << child.output();
  EXPECT_EQ(0, child.exit_code()) << child.output();
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, Topology,
    ::testing::Values(TopologyCase{"PerContext", CallbackThreadScope::PerContext, true, "no", "yes"},
                      TopologyCase{"PerDevice", CallbackThreadScope::PerDevice, true, "no", "no"},
                      TopologyCase{"PerProcess", CallbackThreadScope::PerProcess, true, "no", "no"},
                      TopologyCase{"Unserialized", CallbackThreadScope::PerContext, false, "yes", "yes"}),
    [](const ::testing::TestParamInfo<TopologyCase>& info) { return std::string(info.param.name); });

TEST(SimConfiguration, EnqueueBlocksAtTheProfilesDepth) {
  SIM_ONLY();
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  profile.topology.enqueue_blocks_at_depth = 3;
  ProfileFile file(to_json(profile));
  {
    ChildProcess child(child_arguments({"enqueue-depth", "3"}), {{"GILSAN_SIM_PROFILE", file.path()}});
    ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
    EXPECT_EQ("blocks", child.line_value("verdict ")) << child.output();
  }
  {
    ChildProcess child(child_arguments({"enqueue-depth", "2"}), {{"GILSAN_SIM_PROFILE", file.path()}});
    ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
    EXPECT_EQ("returns", child.line_value("verdict ")) << child.output();
  }
}

TEST(Process, EnqueueDoesNotBlockWithoutADepthInTheProfile) {
  if (on_sim() && expected_profile().topology.enqueue_blocks_at_depth) GTEST_SKIP() << "the profile sets a depth";
  ChildProcess child(child_arguments({"enqueue-depth", "64"}));
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ("returns", child.line_value("verdict ")) << child.output();
}

TEST(Process, FaultingDeviceWorkMakesTheContextUnusable) {
  ChildProcess child(child_arguments({"sticky-error"}));
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ(code(CUDA_SUCCESS), child.line_value("launch ")) << child.output();
  EXPECT_EQ(code(CUDA_ERROR_ILLEGAL_ADDRESS), child.line_value("synchronize ")) << child.output();
  EXPECT_EQ("no", child.line_value("host-function-ran ")) << child.output();
  // Every call on the failed context, as the H200's driver answers it (docs/results/2026-12-04-0425Z-*).
  const std::pair<const char*, CUresult> kAfterFault[] = {
      {"cuStreamQuery", CUDA_ERROR_ILLEGAL_ADDRESS},    {"cuLaunchHostFunc", CUDA_ERROR_ILLEGAL_ADDRESS},
      {"cuEventRecord", CUDA_ERROR_ILLEGAL_ADDRESS},    {"cuEventQuery", CUDA_ERROR_ILLEGAL_ADDRESS},
      {"cuEventSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS}, {"cuStreamCreate", CUDA_ERROR_ILLEGAL_ADDRESS},
      {"cuEventCreate", CUDA_ERROR_ILLEGAL_ADDRESS},    {"cuMemAlloc", CUDA_ERROR_ILLEGAL_ADDRESS},
      {"cuCtxSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS}, {"cuCtxGetCurrent", CUDA_SUCCESS},
      {"cuMemFree", CUDA_ERROR_ILLEGAL_ADDRESS},        {"cuEventDestroy", CUDA_ERROR_ILLEGAL_ADDRESS},
      {"cuStreamDestroy", CUDA_ERROR_ILLEGAL_ADDRESS},  {"cuStreamDestroy-faulted", CUDA_ERROR_ILLEGAL_ADDRESS},
  };
  for (const auto& [call, result] : kAfterFault)
    EXPECT_EQ(code(result), child.line_value(std::string("after-fault ") + call + " ")) << call << "\n" << child.output();
  EXPECT_EQ("no", child.line_value("host-function-after-fault-ran ")) << child.output();
}

TEST(Process, ExitsWithWorkPendingAndACallbackThreadBlocked) {
  SIM_ONLY();  // the real driver's exit path is its own business
  ChildProcess child(child_arguments({"exit-with-pending-work"}));
  ASSERT_TRUE(child.wait_for_exit(kHangTimeout)) << child.output();
  EXPECT_EQ("yes", child.line_value("exiting ")) << child.output();
  EXPECT_EQ(0, child.exit_code()) << child.output();
  EXPECT_EQ(0, child.signal()) << child.output();
}

}  // namespace
}  // namespace gilsan::test
