// The ELF reader and symbolizer on this very process.
#include "harness/watchdog/symbolizer.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>

extern "C" __attribute__((noinline)) int gilsan_symbolizer_test_target(int x) {
  asm volatile("" ::: "memory");  // keeps the function from being folded away
  return x * 3 + 1;
}

namespace gilsan::watchdog {
namespace {

__attribute__((noinline)) void symbolizer_test_cpp_target() { asm volatile("" ::: "memory"); }

TEST(Symbolizer, NamesAFunctionOfThisProgram) {
  auto address = reinterpret_cast<std::uintptr_t>(&gilsan_symbolizer_test_target);
  Symbolizer symbolizer = Symbolizer::for_process(::getpid());
  NativeFrame exact = symbolizer.symbolize(address, false);
  EXPECT_EQ(exact.symbol, "gilsan_symbolizer_test_target");
  EXPECT_EQ(exact.symbol_offset, 0u);
  char self[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  EXPECT_EQ(exact.module, self);
  // A return address just past the function's first byte still belongs to it.
  NativeFrame returned = symbolizer.symbolize(address + 1, true);
  EXPECT_EQ(returned.symbol, "gilsan_symbolizer_test_target");
}

TEST(Symbolizer, DemanglesCppNames) {
  auto address = reinterpret_cast<std::uintptr_t>(&symbolizer_test_cpp_target);
  NativeFrame frame = Symbolizer::for_process(::getpid()).symbolize(address, false);
  EXPECT_EQ(frame.symbol, "gilsan::watchdog::(anonymous namespace)::symbolizer_test_cpp_target()");
}

TEST(Symbolizer, NamesAFunctionOfLibc) {
  auto address = reinterpret_cast<std::uintptr_t>(&::getpid);
  NativeFrame frame = Symbolizer::for_process(::getpid()).symbolize(address, false);
  EXPECT_NE(frame.symbol.find("getpid"), std::string::npos) << frame.symbol;
  EXPECT_NE(frame.module.find("libc"), std::string::npos) << frame.module;
}

TEST(Symbolizer, UnmappedAddressesStayUnnamed) {
  NativeFrame frame = Symbolizer::for_process(::getpid()).symbolize(0x10, false);
  EXPECT_TRUE(frame.symbol.empty());
  EXPECT_TRUE(frame.module.empty());
}

TEST(ElfSymbols, ErrorsNameTheFile) {
  std::string path = ::testing::TempDir() + "/not-an-elf.txt";
  std::ofstream(path) << "hello, this is not an ELF file at all";
  try {
    ElfSymbols::load(path);
    FAIL() << "no error";
  } catch (const ElfError& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
  EXPECT_THROW(ElfSymbols::load(path + ".missing"), ElfError);
  std::remove(path.c_str());
}

TEST(ElfSymbols, ReadsTheSymbolTableOfThisProgram) {
  ElfSymbols symbols = ElfSymbols::load("/proc/self/exe");
  EXPECT_EQ(symbols.table(), ".symtab");
  EXPECT_GT(symbols.size(), 10u);
}

}  // namespace
}  // namespace gilsan::watchdog
