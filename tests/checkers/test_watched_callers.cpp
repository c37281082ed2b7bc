// Which call sites' native locks the sanitizer models (checkers/sources/watched_callers.h): the policy by
// module path, the maps parser, and the lookup against a plain scan of the mappings, with a library
// loaded between two lookups (the maps read again).
#include "checkers/sources/watched_callers.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace gilsan::checkers {
namespace {

TEST(WatchedCallers, ThePolicyWatchesTheProgramsOwnLibrariesOnly) {
  EXPECT_TRUE(is_watched_module("/opt/app/lib/libregistry.so"));
  EXPECT_TRUE(is_watched_module("/build/scenarios/libgilsan_native_scenario.so"));
  EXPECT_TRUE(is_watched_module("/venv/lib/python3.12/site-packages/torch/lib/libc10_cuda.so"));
  EXPECT_TRUE(is_watched_module("/usr/local/bin/my_cuda_app"));
  EXPECT_FALSE(is_watched_module(""));
  EXPECT_FALSE(is_watched_module("[vdso]"));
  EXPECT_FALSE(is_watched_module("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(is_watched_module("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
  EXPECT_FALSE(is_watched_module("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"));
  EXPECT_FALSE(is_watched_module("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
  EXPECT_FALSE(is_watched_module("/usr/lib/libpython3.12.so.1.0"));
  EXPECT_FALSE(is_watched_module("/usr/bin/python3.12"));
  EXPECT_FALSE(is_watched_module("/opt/gilsan/bin/gilsan"));
  EXPECT_FALSE(is_watched_module("/opt/gilsan/lib/libgilsan_inject.so"));
  EXPECT_FALSE(is_watched_module("/opt/gilsan/lib/libgilsan_native_locks.so"));
  EXPECT_FALSE(is_watched_module("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"));
}

class MapsFile {
 public:
  MapsFile() {
    char name[] = "/tmp/gilsan-maps-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) throw std::runtime_error("mkstemp");
    ::close(fd);
    path_ = name;
  }
  ~MapsFile() { ::unlink(path_.c_str()); }
  void write(const std::string& text) const { std::ofstream(path_, std::ios::trunc) << text; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(WatchedCallers, TheMapsParserKeepsExecutableMappingsWithTheirPaths) {
  MapsFile maps;
  maps.write(
      "5555e000-5555f000 r--p 00000000 08:01 12 /usr/bin/python3.12\n"
      "5555f000-55560000 r-xp 00001000 08:01 12 /usr/bin/python3.12\n"
      "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
      "7f0000002000-7f0000003000 r-xp 00000000 08:01 99     /opt/my libs/libspace.so\n"
      "7fff0000-7fff1000 r-xp 00000000 00:00 0                  [vdso]\n"
      "not a mapping line\n");
  const std::vector<ExecutableMapping> mappings = read_executable_mappings(maps.path());
  ASSERT_EQ(mappings.size(), 4u);
  EXPECT_EQ(mappings[0].begin, 0x5555f000u);
  EXPECT_EQ(mappings[0].end, 0x55560000u);
  EXPECT_EQ(mappings[0].path, "/usr/bin/python3.12");
  EXPECT_EQ(mappings[1].path, "");
  EXPECT_EQ(mappings[2].path, "/opt/my libs/libspace.so");
  EXPECT_EQ(mappings[3].path, "[vdso]");
  EXPECT_TRUE(read_executable_mappings("/nonexistent/maps").empty());
}

// The lookup against a plain scan: random mappings, random addresses, and a library added between
// lookups, which the next miss reads.
TEST(WatchedCallers, TheLookupAgreesWithAPlainScanAndReadsANewLibrary) {
  std::mt19937_64 random(20261208);
  struct Mapping {
    std::uintptr_t begin, end;
    std::string path;
  };
  std::vector<Mapping> mappings;
  std::uintptr_t next = 0x10000;
  for (int index = 0; index < 40; ++index) {
    next += 0x1000 * (1 + random() % 4);  // gaps between mappings
    const std::uintptr_t size = 0x1000 * (1 + random() % 8);
    const char* paths[] = {"/opt/lib/libmine.so", "/usr/lib/libc.so.6", "/usr/lib/libcuda.so.1", ""};
    mappings.push_back({next, next + size, paths[random() % 4]});
    next += size;
  }
  auto text_of = [](const std::vector<Mapping>& list) {
    std::string text;
    char line[256];
    for (const Mapping& mapping : list) {
      std::snprintf(line, sizeof line, "%lx-%lx r-xp 00000000 08:01 7 %s\n", static_cast<unsigned long>(mapping.begin),
                    static_cast<unsigned long>(mapping.end), mapping.path.c_str());
      text += line;
    }
    return text;
  };
  MapsFile maps;
  const Mapping added = mappings.back();
  std::vector<Mapping> before(mappings.begin(), mappings.end() - 1);
  maps.write(text_of(before));
  WatchedCallers callers(maps.path());
  auto plain_scan = [](const std::vector<Mapping>& list, std::uintptr_t address) -> const Mapping* {
    for (const Mapping& mapping : list) {
      if (address >= mapping.begin && address < mapping.end) return &mapping;
    }
    return nullptr;
  };
  // Inside the mappings (a return address always is), and now and then in a gap between two, which
  // reads the maps again (a library loaded since?) and finds nothing.
  for (int probe = 0; probe < 2000; ++probe) {
    const Mapping& target = before[random() % before.size()];
    const std::uintptr_t address =
        probe % 400 == 0 ? target.begin - 1 : target.begin + random() % (target.end - target.begin);
    const Mapping* expected = plain_scan(before, address);
    const WatchedCallers::Caller found = callers.find(address);
    EXPECT_EQ(found.watched, expected != nullptr && is_watched_module(expected->path)) << std::hex << address;
    EXPECT_EQ(found.known, expected != nullptr) << "in a gap, even after reading the maps again";
    if (expected != nullptr) {
      EXPECT_EQ(found.module, expected->path.substr(expected->path.find_last_of('/') + 1));
    }
  }
  const int reads_before = callers.reads();
  maps.write(text_of(mappings));
  const WatchedCallers::Caller in_the_new_library = callers.find(added.begin);
  EXPECT_EQ(callers.reads(), reads_before + 1);
  EXPECT_EQ(in_the_new_library.watched, is_watched_module(added.path));
  callers.find(added.begin);
  EXPECT_EQ(callers.reads(), reads_before + 1) << "a known address reads nothing again";
}

// In this process: the test's own code is watched (its executable is a program of its own), libc's is not.
TEST(WatchedCallers, ThisProcesssOwnCodeIsWatchedAndLibcIsNot) {
  WatchedCallers callers;
  EXPECT_TRUE(callers.find(reinterpret_cast<std::uintptr_t>(&is_watched_module)).watched);
  EXPECT_FALSE(callers.find(reinterpret_cast<std::uintptr_t>(&::getpid)).watched);
}

}  // namespace
}  // namespace gilsan::checkers
