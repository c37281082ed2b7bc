// The small parts every event source shares: entry point names, what a call waits for, the profile
// predicates, names and kinds for code addresses, CUresult names.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "checkers/sources/code_address.h"
#include "checkers/sources/completion_waits.h"
#include "checkers/sources/entry_point_names.h"
#include "checkers/sources/error_names.h"
#include "checkers/sources/implementations.h"
#include "checkers/sources/profile_behaviour.h"
#include "checkers/sources/python_gil_probe.h"

namespace gilsan::checkers {
namespace {

TEST(EntryPointNames, SuffixesComeOffInAnyOrder) {
  EXPECT_EQ("cuStreamSynchronize", split_entry_point_name("cuStreamSynchronize").base);
  EXPECT_FALSE(split_entry_point_name("cuStreamSynchronize").per_thread);
  EXPECT_EQ("cuCtxCreate", split_entry_point_name("cuCtxCreate_v4").base);
  const EntryPointName copy = split_entry_point_name("cuMemcpyHtoDAsync_v2_ptsz");
  EXPECT_EQ("cuMemcpyHtoDAsync", copy.base);
  EXPECT_TRUE(copy.per_thread);
  EXPECT_EQ("cuMemcpy", split_entry_point_name("cuMemcpy_ptds").base);
  EXPECT_EQ("cuGraphAddNode", split_entry_point_name("cuGraphAddNode_v2").base);
  EXPECT_EQ("cuD3D9", split_entry_point_name("cuD3D9").base);  // digits without "_v" stay
  EXPECT_EQ("cu_v", split_entry_point_name("cu_v").base);
}

TEST(CompletionWaits, OnlyWaitingCallsWait) {
  CompletionWaits waits;
  EXPECT_EQ(std::vector<Handle>{0x50}, waits.waits_of("cuStreamSynchronize", 0x50, std::nullopt).streams);
  EXPECT_TRUE(waits.waits_of("cuStreamSynchronize", std::nullopt, std::nullopt).whole_context);
  EXPECT_TRUE(waits.waits_of("cuStreamSynchronize", kLegacyStream, std::nullopt).whole_context);
  EXPECT_EQ(std::vector<Handle>{kPerThreadStream},
            waits.waits_of("cuStreamSynchronize", kPerThreadStream, std::nullopt).streams);
  EXPECT_TRUE(waits.waits_of("cuCtxSynchronize", std::nullopt, std::nullopt).whole_context);
  EXPECT_TRUE(waits.waits_of("cuStreamQuery", 0x50, std::nullopt).empty());
  EXPECT_TRUE(waits.waits_of("cuLaunchHostFunc", 0x50, std::nullopt).empty());
  // An event waits for the stream it was last recorded on; before any record, for nothing.
  EXPECT_TRUE(waits.waits_of("cuEventSynchronize", std::nullopt, 0xe1).empty());
  waits.event_recorded(0xe1, 0x50);
  waits.event_recorded(0xe1, 0x60);
  EXPECT_EQ(std::vector<Handle>{0x60}, waits.waits_of("cuEventSynchronize", std::nullopt, 0xe1).streams);
  waits.event_destroyed(0xe1);
  EXPECT_TRUE(waits.waits_of("cuEventSynchronize", std::nullopt, 0xe1).empty());
}

TEST(ProfileBehaviour, AnswersFromTheProfileAndFalseForUnknownNames) {
  auto profile = std::make_shared<DriverProfile>();
  profile->while_host_function_runs["cuMemFree"] = OutsideBehaviour::Blocks;
  profile->while_host_function_runs["cuMemAlloc"] = OutsideBehaviour::Returns;
  profile->inside_host_function["cuCtxSynchronize"] = InsideBehaviour::NotPermitted;
  profile->inside_host_function["cuStreamQuery"] = InsideBehaviour::Allowed;
  const DriverBehaviour behaviour = behaviour_from_profile(profile);
  EXPECT_TRUE(behaviour.blocks_while_host_function_runs("cuMemFree"));
  EXPECT_FALSE(behaviour.blocks_while_host_function_runs("cuMemAlloc"));
  EXPECT_FALSE(behaviour.blocks_while_host_function_runs("cuNoSuchCall"));
  EXPECT_TRUE(behaviour.refused_in_host_function("cuCtxSynchronize"));
  EXPECT_FALSE(behaviour.refused_in_host_function("cuStreamQuery"));
  EXPECT_FALSE(behaviour.refused_in_host_function("cuNoSuchCall"));
}

TEST(ProfileBehaviour, UnderEagerLoadingTheProfilesEagerOverridesApply) {
  auto profile = std::make_shared<DriverProfile>();
  profile->while_host_function_runs["cuMemFree"] = OutsideBehaviour::Blocks;
  profile->while_host_function_runs["cuLibraryLoadData"] = OutsideBehaviour::Returns;
  profile->inside_host_function["cuMemAlloc"] = InsideBehaviour::NotPermitted;
  profile->eager_call_overrides = CallTableOverrides{{{"cuMemAlloc", InsideBehaviour::Allowed}},
                                                     {{"cuMemFree", OutsideBehaviour::Returns},
                                                      {"cuLibraryLoadData", OutsideBehaviour::Blocks}}};
  const DriverBehaviour lazy = behaviour_from_profile(profile, ModuleLoading::Lazy);
  const DriverBehaviour eager = behaviour_from_profile(profile, ModuleLoading::Eager);
  EXPECT_TRUE(lazy.blocks_while_host_function_runs("cuMemFree"));
  EXPECT_FALSE(eager.blocks_while_host_function_runs("cuMemFree"));
  EXPECT_FALSE(lazy.blocks_while_host_function_runs("cuLibraryLoadData"));
  EXPECT_TRUE(eager.blocks_while_host_function_runs("cuLibraryLoadData"));
  EXPECT_TRUE(lazy.refused_in_host_function("cuMemAlloc"));
  EXPECT_FALSE(eager.refused_in_host_function("cuMemAlloc"));
  // The one-argument form reads the mode as the driver does, from CUDA_MODULE_LOADING.
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  EXPECT_FALSE(behaviour_from_profile(profile).blocks_while_host_function_runs("cuMemFree"));
  ::unsetenv("CUDA_MODULE_LOADING");
  EXPECT_TRUE(behaviour_from_profile(profile).blocks_while_host_function_runs("cuMemFree"));
}

TEST(ProfileBehaviour, ABadProfilePathIsOneClearError) {
  ::setenv("GILSAN_PROFILE", "/nonexistent/profile.json", 1);
  try {
    load_profile_for_sources();
    ADD_FAILURE() << "no error";
  } catch (const DriverProfileError& error) {
    EXPECT_EQ("/nonexistent/profile.json:1: cannot open driver profile", std::string(error.what()));
  }
  ::unsetenv("GILSAN_PROFILE");
  EXPECT_NO_THROW(load_profile_for_sources());  // the shipped one
}

extern "C" void gilsan_test_named_function() {}

TEST(CodeAddress, NamesTheSymbolAndItsObject) {
  const HostFunctionIdentity own = identify_host_function(reinterpret_cast<const void*>(&gilsan_test_named_function));
  EXPECT_EQ("gilsan_test_named_function", own.callable);
  EXPECT_EQ("gilsan_checkers_source_tests", own.implementation);
  EXPECT_EQ(HostFunctionKind::native, own.kind);
  const HostFunctionIdentity libc = identify_host_function(reinterpret_cast<const void*>(&::dladdr));
  EXPECT_TRUE(libc.implementation.starts_with("libc")) << libc.implementation;
  EXPECT_EQ("unknown", identify_host_function(nullptr).implementation);
}

// Which objects run Python is the table's (implementations.inc; tests/checkers/test_implementations.cpp).
TEST(CodeAddress, CodeThatRunsPythonIsPython) {
  EXPECT_EQ(HostFunctionKind::python,
            implementation_of_object("/venv/lib/python3.12/site-packages/x/stream.cpython-312-x86_64-linux-gnu.so").kind);
  EXPECT_EQ(HostFunctionKind::python, implementation_of_object("_cffi.abi3.so").kind);
  EXPECT_EQ(HostFunctionKind::python, implementation_of_object("").kind);
  EXPECT_EQ(HostFunctionKind::python, implementation_of_object("/usr/lib/x86_64-linux-gnu/libffi.so.8").kind);
  EXPECT_EQ(HostFunctionKind::native, implementation_of_object("/usr/local/cuda/lib64/libcudart.so.13").kind);
}

TEST(ErrorNames, TakesTheDriversNamesOnce) {
  int asked = 0;
  const ErrorNames names([&asked](int code) -> const char* {
    ++asked;
    return code == 800 ? "CUDA_ERROR_NOT_PERMITTED" : nullptr;
  });
  EXPECT_EQ(ErrorNames::kLargestCode + 1, asked);
  EXPECT_EQ("CUDA_ERROR_NOT_PERMITTED", names.name(800));
  EXPECT_EQ("", names.name(1));
  EXPECT_EQ("", names.name(-1));
  EXPECT_EQ("", names.name(100000));
}

TEST(PythonGilProbe, WithoutAnInterpreterThereIsNoGil) {
  PythonGilProbe probe;
  EXPECT_EQ(std::nullopt, probe.holds_gil());
}

}  // namespace
}  // namespace gilsan::checkers
