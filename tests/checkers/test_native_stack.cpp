// Native stacks and names for code (checkers/sources/native_stack.h, code_address.h) and the
// runtime's built-in error names (checkers/inject/runtime_error_names.h).
#include <gtest/gtest.h>

#include <string>

#include "checkers/inject/runtime_error_names.h"
#include "checkers/sources/code_address.h"
#include "checkers/sources/native_stack.h"
#include "harness/symbols/source_lines.h"

// File-local functions at global scope: the executable exports its global symbols (ENABLE_EXPORTS),
// not these, so only the ELF .symtab names them.
static __attribute__((noinline)) gilsan::checkers::Stack file_local_capturer() {
  gilsan::checkers::Stack stack = gilsan::checkers::capture_native_stack(8);
  asm volatile("" ::: "memory");  // keeps the call from being a tail call
  return stack;
}

static __attribute__((noinline)) int file_local_function(int value) {
  asm volatile("" ::: "memory");
  return value * 3 + 1;
}

// A call inlined into a function with a frame of its own (always_inline: at every optimization level).
static const int kInlinedCaptureLine = __LINE__ + 2;
static __attribute__((always_inline)) inline gilsan::checkers::Stack inlined_capturer() {
  gilsan::checkers::Stack stack = gilsan::checkers::capture_native_stack(8);
  asm volatile("" ::: "memory");
  return stack;
}

static const int kOuterCaptureLine = __LINE__ + 2;
static __attribute__((noinline)) gilsan::checkers::Stack outer_capturer() {
  gilsan::checkers::Stack stack = inlined_capturer();
  asm volatile("" ::: "memory");
  return stack;
}

namespace gilsan::checkers {
namespace {

TEST(NativeStack, CaptureKeepsRawFramesThatSymbolizeNames) {
  Stack stack = file_local_capturer();
  ASSERT_FALSE(stack.empty());
  EXPECT_EQ(0u, stack[0].rfind("0x", 0)) << stack[0];  // raw until a report names it
  symbolize_native_stack(stack, {});
  EXPECT_NE(std::string::npos, stack[0].find("file_local_capturer()")) << stack[0];
  EXPECT_NE(std::string::npos, stack[0].find("(gilsan_checkers_source_tests)")) << stack[0];
  EXPECT_NE(std::string::npos, stack[1].find("CaptureKeepsRawFramesThatSymbolizeNames")) << stack[1];
}

TEST(NativeStack, OwnFramesAreCutFromTheInnermostEndOnly) {
  Stack stack = file_local_capturer();
  ASSERT_GE(stack.size(), 2u);
  symbolize_native_stack(stack, {"file_local_capturer"});
  EXPECT_EQ(std::string::npos, stack[0].find("file_local_capturer")) << stack[0];
  EXPECT_NE(std::string::npos, stack[0].find("OwnFramesAreCutFromTheInnermostEndOnly")) << stack[0];

  Stack only_own = {"0x1", "0x2"};  // nothing maps these: each stays its number
  symbolize_native_stack(only_own, {"0x"});
  EXPECT_EQ(1u, only_own.size());  // at least one frame is kept
}

TEST(NativeStack, FramesThatAreNotRawAreLeftAsTheyAre) {
  Stack stack = {"scenario.py:12 main", "0xzz", "0x"};
  symbolize_native_stack(stack, {"scenario"});
  EXPECT_EQ((Stack{"scenario.py:12 main", "0xzz", "0x"}), stack);
}

TEST(NativeStack, StaticSymbolsNameWhatDladdrCannot) {
  EXPECT_EQ(7, file_local_function(2));
  const auto* code = reinterpret_cast<const char*>(&file_local_function);
  EXPECT_EQ("file_local_function(int)", static_symbol_name(code));
  EXPECT_EQ("file_local_function(int)+0x1", static_symbol_name(code + 1));
  const HostFunctionIdentity identity = identify_host_function(code);
  EXPECT_EQ("file_local_function(int)", identity.callable);
  EXPECT_EQ("gilsan_checkers_source_tests", identity.implementation);
  int on_stack = 0;
  EXPECT_EQ("", static_symbol_name(&on_stack));  // data, not code
}

// With libdw-dev at build time (so libdw1 here), frames get file:line and inlined calls a frame each.
TEST(NativeStack, DwarfAddsFileLineAndAFramePerInlinedCall) {
  if (std::string why_not = watchdog::SourceLines::unavailable_reason(); !why_not.empty()) {
#ifdef GILSAN_HAVE_LIBDW_HEADERS
    FAIL() << why_not;
#else
    GTEST_SKIP() << why_not;
#endif
  }
  Stack stack = outer_capturer();
  symbolize_native_stack(stack, {});
  ASSERT_GE(stack.size(), 2u);
  const std::string file = "test_native_stack.cpp:";
  EXPECT_EQ(0u, stack[0].rfind("[inlined] inlined_capturer", 0)) << stack[0];
  EXPECT_NE(std::string::npos, stack[0].find(file + std::to_string(kInlinedCaptureLine))) << stack[0];
  EXPECT_EQ(0u, stack[1].rfind("outer_capturer()+0x", 0)) << stack[1];
  EXPECT_NE(std::string::npos, stack[1].find("(gilsan_checkers_source_tests) at ")) << stack[1];
  EXPECT_NE(std::string::npos, stack[1].find(file + std::to_string(kOuterCaptureLine))) << stack[1];
}

TEST(RuntimeErrorNames, TheBuiltInTableComesFromTheToolkitsHeader) {
  EXPECT_EQ("cudaSuccess", inject::built_in_runtime_error_name(0));
  EXPECT_EQ("cudaErrorInvalidValue", inject::built_in_runtime_error_name(1));
  EXPECT_EQ("cudaErrorNotPermitted", inject::built_in_runtime_error_name(800));
  EXPECT_EQ("", inject::built_in_runtime_error_name(-5));
  EXPECT_EQ("", inject::built_in_runtime_error_name(123456));
}

}  // namespace
}  // namespace gilsan::checkers
