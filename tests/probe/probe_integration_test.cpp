// gilsan-probe against the simulated driver, end to end: round trips of profiles, a hang inside a
// host function, the runtime comparison through a stand-in libcudart, and --diff's lines and exit
// codes. Each test is registered with ctest on its own (tests/probe/CMakeLists.txt).
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/profile/driver_profile.h"

extern char** environ;

namespace gilsan {
namespace {

struct ProbeRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Processes of the probe's executable that descend from this test: the test process is a child
// subreaper (Probe::SetUp), so a case child that outlived its probe is re-parented to it. Probes that
// other tests run at the same time (ctest -j) are not counted.
int probe_processes() {
  int count = 0;
  DIR* proc = opendir("/proc");
  while (dirent* entry = readdir(proc)) {
    char link[4096];
    std::string exe = std::string("/proc/") + entry->d_name + "/exe";
    ssize_t n = readlink(exe.c_str(), link, sizeof link - 1);
    if (n <= 0 || std::string(link, static_cast<std::size_t>(n)) != GILSAN_PROBE_EXECUTABLE) continue;
    std::string stat = read_file(std::string("/proc/") + entry->d_name + "/stat");
    std::size_t after_name = stat.rfind(')');
    if (after_name == std::string::npos) continue;
    int parent = 0;
    if (std::sscanf(stat.c_str() + after_name + 1, " %*c %d", &parent) == 1 && parent == getpid()) ++count;
  }
  closedir(proc);
  return count;
}

// The other value of a cell, so that an edit changes the profile whatever the shipped one says.
std::string flipped_inside(const nlohmann::json& value) { return value == "allowed" ? "not-permitted" : "allowed"; }
std::string flipped_outside(const nlohmann::json& value) { return value == "returns" ? "blocks" : "returns"; }

class Probe : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    char pattern[] = "/tmp/gilsan-probe-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);  // kept for a look when a test failed
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  ProbeRun probe(const std::vector<std::string>& arguments) {
    std::vector<std::string> argv = {GILSAN_PROBE_EXECUTABLE};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> pointers;
    for (auto& a : argv) pointers.push_back(a.data());
    pointers.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, path("stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, path("stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    ProbeRun run;
    if (posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ) == 0) {
      int status = 0;
      waitpid(pid, &status, 0);
      run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    posix_spawn_file_actions_destroy(&actions);
    run.out = read_file(path("stdout"));
    run.err = read_file(path("stderr"));
    return run;
  }

  // The shipped profile with `edit` applied, written to NAME in the test's folder.
  std::string edited_profile(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json profile = nlohmann::json::parse(read_file(GILSAN_SHIPPED_PROFILE));
    edit(profile);
    write_file(path(name), profile.dump(2) + "\n");
    return path(name);
  }

  // Probes the simulated driver running `profile`; returns the measured profile and keeps the markdown.
  DriverProfile probe_profile(const std::string& profile, std::vector<std::string> extra = {}) {
    std::vector<std::string> arguments = {"--driver", "sim", "--profile", profile, "-o", path("measured.json"),
                                          "--markdown", path("measured.md")};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    ProbeRun run = probe(arguments);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    markdown_ = read_file(path("measured.md"));
    return load_driver_profile(path("measured.json"));
  }

  // The probe leaves unmeasured only the cells no recipe can decide on any driver.
  static void expect_only_inherent_cells_unmeasured(const DriverProfile& measured) {
    // cuCtxSynchronize waits for the held host function by its nature; no libcudart reaches the
    // simulated driver, so the runtime's cell has no case.
    EXPECT_EQ(measured.unmeasured,
              (std::vector<std::string>{"while_host_function_runs.cuCtxSynchronize",
                                        "eager_call_overrides.while_host_function_runs.cuCtxSynchronize",
                                        "enqueued_work_while_host_function_runs.lazy.cudaLaunchKernel#first-runtime-kernel",
                                        "enqueued_work_while_host_function_runs.eager.cudaLaunchKernel#first-runtime-kernel"}));
  }

  std::string dir_;
  std::string markdown_;
};

TEST_F(Probe, TheShippedProfileRoundTrips) {
  DriverProfile shipped = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  DriverProfile measured = probe_profile(GILSAN_SHIPPED_PROFILE);
  ProbeRun diff = probe({"--diff", GILSAN_SHIPPED_PROFILE, path("measured.json")});
  EXPECT_EQ(diff.out, "");
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
  EXPECT_TRUE(measured.same_behaviour(shipped));
  expect_only_inherent_cells_unmeasured(measured);
  EXPECT_EQ(measured.origin.method, "gilsan probe");
  EXPECT_NE(measured.origin.gpu.find("NVIDIA H200"), std::string::npos) << measured.origin.gpu;
  EXPECT_NE(markdown_.find("| entry point | inside result code | inside behaviour | outside behaviour | recipe |"),
            std::string::npos);
  // cuMemAlloc's row says what the profile says, with the raw result code.
  std::size_t row = markdown_.find("\n| cuMemAlloc | ");
  ASSERT_NE(row, std::string::npos) << markdown_;
  std::string line = markdown_.substr(row + 1, markdown_.find('\n', row + 1) - row - 1);
  const std::string inside = to_string(shipped.inside("cuMemAlloc"));
  EXPECT_NE(line.find("| " + inside + " | " + to_string(shipped.outside("cuMemAlloc"))), std::string::npos) << line;
  if (inside == std::string("not-permitted")) {
    EXPECT_NE(line.find("CUDA_ERROR_NOT_PERMITTED (800)"), std::string::npos) << line;
  }
  EXPECT_NE(markdown_.find("Skipped: libcudart talks to libcuda.so.1"), std::string::npos);
}

TEST_F(Probe, AHandEditedProfileRoundTrips) {
  std::string edited = edited_profile("edited.json", [](nlohmann::json& p) {
    auto& inside = p["inside_host_function"];
    auto& outside = p["while_host_function_runs"];
    inside["cuStreamQuery"] = "hangs";
    inside["cuMemAlloc"] = flipped_inside(inside["cuMemAlloc"]);
    inside["cuGraphCreate"] = flipped_inside(inside["cuGraphCreate"]);
    outside["cuStreamCreate"] = "blocks";
    outside["cuMemFree"] = flipped_outside(outside["cuMemFree"]);
    outside["cuEventRecord"] = flipped_outside(outside["cuEventRecord"]);
    p["topology"]["enqueue_blocks_at_depth"] = 8;
    p["topology"]["callback_thread"] = "per-device";
    // For entry points with enqueued-work cells the simulated driver follows the cells, so the
    // flipped call keeps them in step; the rest differ by loading mode and by half.
    auto& lazy = p["enqueued_work_while_host_function_runs"]["lazy"];
    auto& eager = p["enqueued_work_while_host_function_runs"]["eager"];
    const char* event_record = outside["cuEventRecord"] == "blocks" ? "call-blocks" : "proceeds";
    lazy["cuEventRecord"] = eager["cuEventRecord"] = event_record;
    lazy["cuLaunchKernel#first-library-kernel"] = "work-waits";
    lazy["cuLaunchKernel"] = "work-waits";
    eager["cuKernelGetFunction#first"] = "proceeds";
    eager["cuMemsetD8Async"] = "work-waits";
    eager["cuLaunchKernel#first-module-function"] = "call-blocks";
    // The EAGER call tables then follow from the edited cells (derived), not from the shipped
    // profile's measured overrides, which describe the unedited cells.
    p.erase("eager_call_overrides");
    auto& unmeasured = p["unmeasured"];
    for (auto it = unmeasured.begin(); it != unmeasured.end();) {
      it = it->get<std::string>().starts_with("eager_call_overrides.") ? unmeasured.erase(it) : it + 1;
    }
  });
  ProbeRun shipped_to_edited = probe({"--diff", GILSAN_SHIPPED_PROFILE, edited});
  EXPECT_EQ(shipped_to_edited.exit_code, 1) << "the edits must change the profile";
  DriverProfile expected = load_driver_profile(edited);
  DriverProfile measured = probe_profile(edited);
  ProbeRun diff = probe({"--diff", edited, path("measured.json")});
  EXPECT_EQ(diff.out, "");
  EXPECT_TRUE(measured.same_behaviour(expected));
  expect_only_inherent_cells_unmeasured(measured);
  EXPECT_EQ(measured.topology.enqueue_blocks_at_depth, 8);
  EXPECT_EQ(measured.topology.callback_thread, CallbackThreadScope::PerDevice);
}

// The call matrices run again under CUDA_MODULE_LOADING=EAGER; the simulated driver applies the
// profile's eager overrides under EAGER only, so probing it gives them back, and nothing else.
TEST_F(Probe, EagerCallOverridesRoundTrip) {
  // The overrides the shipped profile's cells imply (the simulated driver follows the cells of
  // cuLibraryLoadData and cuKernelGetFunction under EAGER too), and four of its own, each the other
  // answer of the lazy table's.
  DriverProfile edit = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  CallTableOverrides overrides = edit.eager_overrides();
  for (const char* entry : {"cuMemAlloc", "cuGraphCreate"})
    overrides.inside_host_function[entry] =
        edit.inside(entry) == InsideBehaviour::Allowed ? InsideBehaviour::NotPermitted : InsideBehaviour::Allowed;
  for (const char* entry : {"cuMemFree", "cuStreamCreate"})
    overrides.while_host_function_runs[entry] =
        edit.outside(entry) == OutsideBehaviour::Blocks ? OutsideBehaviour::Returns : OutsideBehaviour::Blocks;
  edit.eager_call_overrides = overrides;
  const std::string edited = path("eager.json");
  write_file(edited, to_json(edit));
  ProbeRun shipped_to_edited = probe({"--diff", GILSAN_SHIPPED_PROFILE, edited});
  EXPECT_EQ(shipped_to_edited.exit_code, 1);
  EXPECT_NE(shipped_to_edited.out.find("eager_call_overrides.while_host_function_runs.cuMemFree: (as lazy) -> "),
            std::string::npos)
      << shipped_to_edited.out;
  const DriverProfile expected = load_driver_profile(edited);
  const DriverProfile measured = probe_profile(edited);
  EXPECT_TRUE(measured.same_behaviour(expected));
  EXPECT_EQ(measured.eager_call_overrides, expected.eager_call_overrides);
  EXPECT_EQ(measured.inside_host_function, expected.inside_host_function);
  EXPECT_EQ(measured.while_host_function_runs, expected.while_host_function_runs);
  expect_only_inherent_cells_unmeasured(measured);
  ProbeRun diff = probe({"--diff", edited, path("measured.json")});
  EXPECT_EQ(diff.out, "");
  // The report's EAGER section has a row for each recipe whose verdict differs, and only those.
  const std::size_t section = markdown_.find("## Entry points under CUDA_MODULE_LOADING=EAGER");
  ASSERT_NE(section, std::string::npos) << markdown_;
  const std::string eager_part = markdown_.substr(section, markdown_.find("\n## ", section + 1) - section);
  const std::size_t row = eager_part.find("\n| cuMemFree | ");
  ASSERT_NE(row, std::string::npos) << eager_part;
  const std::string line = eager_part.substr(row + 1, eager_part.find('\n', row + 1) - row - 1);
  const std::string eager_free = expected.outside("cuMemFree") == OutsideBehaviour::Blocks ? "-> returns" : "-> blocks";
  EXPECT_NE(line.find(eager_free), std::string::npos) << line;
  EXPECT_EQ(eager_part.find("\n| cuMemAllocHost | "), std::string::npos) << eager_part;
}

TEST_F(Probe, AHangInsideAHostFunctionIsRecordedAndTheProbeCarriesOn) {
  std::string hanging = edited_profile("hanging.json", [](nlohmann::json& p) {
    p["inside_host_function"]["cuMemAlloc"] = "hangs";
    p["inside_host_function"]["cuCtxGetCurrent"] = "hangs";
  });
  auto started = std::chrono::steady_clock::now();
  DriverProfile measured = probe_profile(hanging);
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(measured.inside("cuMemAlloc"), InsideBehaviour::Hangs);
  EXPECT_EQ(measured.inside("cuCtxGetCurrent"), InsideBehaviour::Hangs);
  EXPECT_TRUE(measured.same_behaviour(load_driver_profile(hanging)));
  EXPECT_NE(markdown_.find("| cuMemAlloc | no return in "), std::string::npos) << markdown_;
  EXPECT_NE(markdown_.find("| cuCtxGetCurrent on the callback thread | no return (hang) |"), std::string::npos);
  EXPECT_LT(took, std::chrono::minutes(5));
  EXPECT_EQ(probe_processes(), 0) << "a case child outlived the probe";
}

TEST_F(Probe, TheRuntimeComparisonRecordsBothAPIs) {
  std::string profile = edited_profile("runtime.json", [](nlohmann::json& p) {
    p["inside_host_function"]["cuMemAlloc"] = "not-permitted";
    p["inside_host_function"]["cuStreamSynchronize"] = "allowed";
  });
  probe_profile(profile, {"--cudart", GILSAN_FAKE_CUDART});
  EXPECT_NE(markdown_.find("| intent | runtime call | runtime result | driver recipe | driver result | differs |"),
            std::string::npos)
      << markdown_;
  EXPECT_NE(markdown_.find("| allocate 1 MiB of device memory | cudaMalloc(1 MiB) | cudaErrorNotPermitted (800) | "
                           "cuMemAlloc | CUDA_ERROR_NOT_PERMITTED (800) | no |"),
            std::string::npos)
      << markdown_;
  EXPECT_NE(markdown_.find("| synchronize the host function's own stream | cudaStreamSynchronize(own stream) | no "
                           "return (hang) | cuStreamSynchronize#own-stream | no return (waits for itself) | no |"),
            std::string::npos)
      << markdown_;
  EXPECT_NE(markdown_.find(std::string("Runtime: runtime library ") + GILSAN_FAKE_CUDART), std::string::npos);
}

TEST_F(Probe, DiffListsEveryChangedCellAndSetsTheExitCode) {
  // Every edited cell is set on both sides, so the expected lines do not depend on the shipped profile.
  std::string a = edited_profile("a.json", [](nlohmann::json& p) {
    p["inside_host_function"]["cuMemAlloc"] = "allowed";
    p["inside_host_function"]["cuStreamSynchronize"] = "allowed";
    p["while_host_function_runs"]["cuMemFree"] = "blocks";
    p["topology"]["serialized_across_streams"] = true;
    p["topology"]["enqueue_blocks_at_depth"] = 8;
  });
  std::string b = edited_profile("b.json", [](nlohmann::json& p) {
    p["inside_host_function"]["cuMemAlloc"] = "not-permitted";
    p["inside_host_function"]["cuStreamSynchronize"] = "hangs";
    p["while_host_function_runs"]["cuMemFree"] = "returns";
    p["topology"]["serialized_across_streams"] = false;
    p["topology"]["enqueue_blocks_at_depth"] = nullptr;
    p["origin"]["driver_version"] = "999.99";
  });
  ProbeRun changed = probe({"--diff", a, b});
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_EQ(changed.out,
            "topology.serialized_across_streams: true -> false\n"
            "topology.enqueue_blocks_at_depth: 8 -> null\n"
            "inside_host_function.cuMemAlloc: allowed -> not-permitted\n"
            "inside_host_function.cuStreamSynchronize: allowed -> hangs\n"
            "while_host_function_runs.cuMemFree: blocks -> returns\n");
  ProbeRun same = probe({"--diff", a, a});
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_EQ(same.out, "");
}

// --held-by: the outside matrix with the held host function enqueued by cuStreamAddCallback, and as a
// graph host node. The simulated driver treats every kind alike, so each measures the profile it runs;
// the measured profile's origin says how it was measured.
TEST_F(Probe, EachKindOfHeldHostFunctionMeasuresTheSimulatedDriverAlike) {
  const DriverProfile shipped = load_driver_profile(GILSAN_SHIPPED_PROFILE);
  for (const char* kind : {"stream-add-callback", "graph-host-node"}) {
    const DriverProfile measured = probe_profile(GILSAN_SHIPPED_PROFILE, {"--held-by", kind});
    EXPECT_TRUE(measured.same_behaviour(shipped)) << kind;
    EXPECT_EQ(measured.origin.method, std::string("gilsan probe --held-by ") + kind);
  }
}

TEST_F(Probe, AMalformedProfileIsAClearErrorNamingFileAndLine) {
  std::string unknown = edited_profile("unknown.json", [](nlohmann::json& p) { p["origin"]["bogus"] = 1; });
  std::string missing = edited_profile("missing.json", [](nlohmann::json& p) { p["inside_host_function"].erase("cuMemAlloc"); });
  ProbeRun bad_key = probe({"--diff", unknown, GILSAN_SHIPPED_PROFILE});
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_EQ(bad_key.out, "");
  EXPECT_NE(bad_key.err.find(unknown + ":"), std::string::npos) << bad_key.err;
  EXPECT_NE(bad_key.err.find("unknown key 'bogus' in origin"), std::string::npos) << bad_key.err;
  ProbeRun bad_entry = probe({"--driver", "sim", "--profile", missing, "-o", path("never.json")});
  EXPECT_EQ(bad_entry.exit_code, 2);
  EXPECT_NE(bad_entry.err.find(missing + ":"), std::string::npos) << bad_entry.err;
  EXPECT_NE(bad_entry.err.find("missing entry point 'cuMemAlloc' in inside_host_function"), std::string::npos)
      << bad_entry.err;
  EXPECT_EQ(access(path("never.json").c_str(), F_OK), -1);
  ProbeRun usage = probe({"--diff", GILSAN_SHIPPED_PROFILE});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("--diff needs two profile files"), std::string::npos);
}

}  // namespace
}  // namespace gilsan
