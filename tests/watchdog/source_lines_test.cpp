// File:line and inlined calls (harness/symbols/source_lines.h) on this test's own code, read the
// way the watchdog reads a child (Symbolizer over /proc/PID/maps) and straight from the file.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "harness/symbols/source_lines.h"
#include "harness/watchdog/source_lines_cache.h"
#include "harness/watchdog/symbolizer.h"

// Three functions at global scope with known lines: outer_function calls inlined_step, which the
// compiler must inline (always_inline, at any optimization level and under the sanitizers), and
// which calls return_address_of_call out of line; that return address sits in outer_function's
// code but in inlined_step's source.
static __attribute__((noinline)) std::uintptr_t return_address_of_call() {
  const auto address = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");
  return address;
}

static const int kInlinedCallLine = __LINE__ + 2;
static __attribute__((always_inline)) inline std::uintptr_t inlined_step() {
  const std::uintptr_t address = return_address_of_call();
  asm volatile("" ::: "memory");  // not a tail call: the return address must stay in this code
  return address;
}

static const int kOuterCallLine = __LINE__ + 2;
static __attribute__((noinline)) std::uintptr_t outer_function() {
  const std::uintptr_t address = inlined_step();
  asm volatile("" ::: "memory");
  return address;
}

namespace gilsan::watchdog {
namespace {

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// libdw-dev was there at build time (GILSAN_HAVE_LIBDW_HEADERS), so libdw1 is on this machine too:
// source lines must work. Without the headers they must say why they do not.
#ifdef GILSAN_HAVE_LIBDW_HEADERS
constexpr bool kSourceLinesBuilt = true;
#else
constexpr bool kSourceLinesBuilt = false;
#endif

TEST(SourceLines, SayWhyTheyAreUnavailableOrAreAvailable) {
  if (kSourceLinesBuilt) {
    EXPECT_EQ("", SourceLines::unavailable_reason());
  } else {
    EXPECT_NE(std::string::npos, SourceLines::unavailable_reason().find("libdw-dev"));
    EXPECT_EQ(nullptr, SourceLines::open("/proc/self/exe"));
  }
}

TEST(SourceLines, NameTheInlinedCallAndItsCallSiteFromTheFile) {
  if (!kSourceLinesBuilt) GTEST_SKIP() << SourceLines::unavailable_reason();
  const std::uintptr_t address = outer_function();
  Dl_info info{};
  link_map* map = nullptr;
  ASSERT_NE(0, ::dladdr1(reinterpret_cast<void*>(address), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP));
  auto lines = SourceLines::open("/proc/self/exe");
  ASSERT_NE(nullptr, lines);
  // The call instruction is the byte before the return address.
  const auto frames = lines->frames_at(address - 1 - map->l_addr);
  ASSERT_EQ(2u, frames.size());
  EXPECT_TRUE(frames[0].inlined);
  EXPECT_EQ(0u, frames[0].function.rfind("inlined_step", 0)) << frames[0].function;  // file-local: no linkage name
  EXPECT_TRUE(ends_with(frames[0].file, "source_lines_test.cpp")) << frames[0].file;
  EXPECT_EQ(kInlinedCallLine, frames[0].line);
  EXPECT_FALSE(frames[1].inlined);
  EXPECT_EQ(0u, frames[1].function.rfind("outer_function", 0)) << frames[1].function;
  EXPECT_EQ(kOuterCallLine, frames[1].line);
  EXPECT_EQ(" at " + frames[1].file + ":" + std::to_string(kOuterCallLine), source_suffix(frames[1]));
}

TEST(SourceLines, TheWatchdogsSymbolizerAddsAFramePerInlinedCall) {
  if (!kSourceLinesBuilt) GTEST_SKIP() << SourceLines::unavailable_reason();
  const std::uintptr_t address = outer_function();
  Symbolizer symbolizer = Symbolizer::for_process(::getpid());
  const auto frames = symbolizer.symbolize_stack({0, address});  // a return address: frames[1..]
  ASSERT_EQ(3u, frames.size());
  EXPECT_TRUE(frames[1].inlined);
  EXPECT_EQ(0u, frames[1].symbol.rfind("inlined_step", 0)) << frames[1].symbol;
  EXPECT_EQ(kInlinedCallLine, frames[1].line);
  EXPECT_EQ(address, frames[1].address);
  EXPECT_FALSE(frames[2].inlined);
  EXPECT_EQ("outer_function()", frames[2].symbol);  // the symbol table's name, with its offset
  EXPECT_NE(0u, frames[2].symbol_offset);
  EXPECT_EQ(kOuterCallLine, frames[2].line);
  EXPECT_TRUE(ends_with(frames[2].file, "source_lines_test.cpp")) << frames[2].file;
}

TEST(SourceLinesCache, OpensEachFileOnceInTheBackgroundOrWhenAsked) {
  if (!kSourceLinesBuilt) GTEST_SKIP() << SourceLines::unavailable_reason();
  SourceLinesCache cache;
  cache.open_in_background({"/proc/self/exe", "/nonexistent/libnothing.so"});
  cache.open_in_background({"/proc/self/exe"});  // one opener at a time: this one is dropped or redundant
  const SourceLines* own = cache.get("/proc/self/exe");  // waits for the opener if it holds the file
  ASSERT_NE(nullptr, own);
  EXPECT_EQ(own, cache.get("/proc/self/exe"));
  EXPECT_EQ(nullptr, cache.get("/nonexistent/libnothing.so"));
}

TEST(SourceLines, AFileThatIsNotElfOrIsMissingHasNone) {
  EXPECT_EQ(nullptr, SourceLines::open("/nonexistent/libnothing.so"));
  char path[] = "/tmp/gilsan-source-lines-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(5, ::write(fd, "hello", 5));
  ::close(fd);
  EXPECT_EQ(nullptr, SourceLines::open(path));
  ::unlink(path);
}

}  // namespace
}  // namespace gilsan::watchdog
