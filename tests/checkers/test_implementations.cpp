// Implementation identity as data (checkers/sources/implementations.inc): realistic object paths of
// each implementation, the rows' order, and identify_host_function on real code addresses.
#include <dlfcn.h>
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <string>

#include "checkers/sources/code_address.h"
#include "checkers/sources/implementations.h"

extern "C" void gilsan_vocabulary_test_host_function(void*) {}

namespace gilsan::checkers {
namespace {

constexpr const char* kSitePackages = "/opt/torch/.venv/lib/python3.12/site-packages";

std::string site(const std::string& rest) { return std::string(kSitePackages) + "/" + rest; }

void expect_identity(const std::string& object, std::string_view implementation, HostFunctionKind kind) {
  const ImplementationIdentity identity = implementation_of_object(object);
  EXPECT_EQ(identity.implementation, implementation) << object;
  EXPECT_EQ(to_string(identity.kind), to_string(kind)) << object;
}

TEST(Implementations, EachImplementationFromItsRealPaths) {
  const HostFunctionKind python = HostFunctionKind::python;
  expect_identity(site("cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so"), "cupy", python);
  expect_identity(site("cupy/cuda/stream.cpython-312-x86_64-linux-gnu.so"), "cupy", python);
  expect_identity(site("cuda/bindings/driver.cpython-312-x86_64-linux-gnu.so"), "cuda-bindings", python);
  expect_identity(site("cuda/bindings/_bindings/cydriver.cpython-312-x86_64-linux-gnu.so"), "cuda-bindings",
                  python);
  expect_identity(site("cuda/core/_graph/_graph_def/_graph_node.cpython-312-x86_64-linux-gnu.so"), "cuda-core",
                  python);
  expect_identity(site("numba_cuda/numba/cuda/cext/_dispatcher.cpython-312-x86_64-linux-gnu.so"), "numba-cuda",
                  python);
  expect_identity("/usr/lib/python3.12/lib-dynload/_ctypes.cpython-312-x86_64-linux-gnu.so", "ctypes", python);
  expect_identity("/usr/lib/x86_64-linux-gnu/libffi.so.8", "ctypes", python);
  expect_identity("/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0", "python", python);
  expect_identity(site("somepkg/_native.cpython-312-x86_64-linux-gnu.so"), "python", python);
  expect_identity(site("_cffi_backend.abi3.so"), "python", python);
  expect_identity("/work/main/build/python/gilsan.cpython-312-x86_64-linux-gnu.so", "gilsan", python);
}

// The runner embeds the module: its executable's host functions include GIL-free copies, and the
// module says itself which of its host functions are Python.
TEST(Implementations, TheRunnerExecutableIsGilsanWithoutTheGil) {
  expect_identity("/work/main/build/bin/gilsan", "gilsan", HostFunctionKind::native);
}

TEST(Implementations, UnknownObjectsAreNativeAndNamedByTheirFile) {
  expect_identity("/usr/local/cuda/lib64/libcudart.so.13", "libcudart.so.13", HostFunctionKind::native);
  expect_identity("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.1", HostFunctionKind::native);
  expect_identity("/home/user/app/libmyapp.so", "libmyapp.so", HostFunctionKind::native);
  expect_identity("./native_app", "native_app", HostFunctionKind::native);
  expect_identity("libfoo.so", "libfoo.so", HostFunctionKind::native);
}

TEST(Implementations, CodeInNoObjectIsACtypesClosure) {
  expect_identity("", "ctypes", HostFunctionKind::python);
}

// Directory patterns need the directories: an object known only by its base name falls to the
// generic rows.
TEST(Implementations, ABaseNameAloneMatchesOnlyBaseNamePatterns) {
  expect_identity("runtime.cpython-312-x86_64-linux-gnu.so", "python", HostFunctionKind::python);
  expect_identity("/opt/cupy_backends_old/libx.so", "libx.so", HostFunctionKind::native);
}

// No row is shadowed by an earlier one: a path made from each row's own pattern finds that row.
TEST(Implementations, EveryRowIsReachable) {
  for (const ImplementationObject& row : kImplementationObjects) {
    std::string sample;
    if (row.object_pattern != kAnonymousCode) {
      for (char c : row.object_pattern) sample += c == '*' ? std::string("x") : std::string(1, c);
    }
    const ImplementationIdentity identity = implementation_of_object(sample);
    EXPECT_EQ(identity.implementation, row.implementation) << row.object_pattern << " as " << sample;
    EXPECT_EQ(to_string(identity.kind), to_string(row.kind)) << row.object_pattern << " as " << sample;
    EXPECT_FALSE(row.implementation.empty());
  }
}

TEST(IdentifyHostFunction, NamesTheSymbolTheObjectAndTheImplementation) {
  const HostFunctionIdentity own =
      identify_host_function(reinterpret_cast<const void*>(&gilsan_vocabulary_test_host_function));
  EXPECT_EQ(own.callable, "gilsan_vocabulary_test_host_function");
  EXPECT_EQ(own.implementation, "gilsan_vocabulary_tests");
  EXPECT_EQ(to_string(own.kind), "native");
  EXPECT_TRUE(own.object.ends_with("gilsan_vocabulary_tests")) << own.object;

  const HostFunctionIdentity libc = identify_host_function(reinterpret_cast<const void*>(&::dladdr));
  EXPECT_TRUE(libc.implementation.starts_with("libc")) << libc.implementation;
  EXPECT_EQ(to_string(libc.kind), "native");
}

TEST(IdentifyHostFunction, AnonymousCodeIsCtypesAndNullIsUnknown) {
  const std::size_t page = 4096;
  void* anonymous = ::mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(anonymous, MAP_FAILED);
  const HostFunctionIdentity closure = identify_host_function(anonymous);
  ::munmap(anonymous, page);
  EXPECT_EQ(closure.implementation, "ctypes");
  EXPECT_EQ(to_string(closure.kind), "python");
  EXPECT_TRUE(closure.callable.starts_with("0x")) << closure.callable;
  EXPECT_EQ(closure.object, "");

  const HostFunctionIdentity none = identify_host_function(nullptr);
  EXPECT_EQ(none.implementation, "unknown");
  EXPECT_EQ(to_string(none.kind), "native");
}

}  // namespace
}  // namespace gilsan::checkers
