// Every flag of run, suite, merge, explain and the hidden child modes reaches its setting, and the
// ways a flag can be wrong (unknown, missing value, bad value) are each one line (command_line.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "harness/command/command_line.h"
#include "tests/runner/parse_command_line_for_test.h"

namespace gilsan {
namespace {

class CommandLineFlags : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("gilsan-cli-flags-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::string file(const std::string& name) const { return (folder_ / name).string(); }

  std::filesystem::path folder_;
};

TEST_F(CommandLineFlags, RunTakesEachOfItsFlags) {
  const std::string report = file("r.json"), sarif = file("r.sarif");
  const auto run = std::get<RunCommand>(parse({"run", "--max-rss", "2G", "s.py", "--sanitize=off", "--impl", "cupy",
                                               "--report=json", "--output=" + report, "--sarif", sarif, "--quiet-ms=250"}));
  EXPECT_EQ(run.scenario, "s.py");
  EXPECT_EQ(run.settings.max_resident_bytes, std::size_t{2} << 30);
  EXPECT_FALSE(run.settings.sanitize);
  EXPECT_EQ(run.settings.implementation, "cupy");
  EXPECT_EQ(run.format, ReportFormat::Json);
  EXPECT_EQ(run.output_path, report);
  EXPECT_EQ(run.sarif_path, sarif);
  EXPECT_EQ(run.settings.watchdog.quiet, std::chrono::milliseconds(250));
}

TEST_F(CommandLineFlags, GivenTwiceTheLastValueCounts) {
  EXPECT_EQ(std::get<RunCommand>(parse({"run", "s.py", "--driver", "real", "--driver=sim"})).settings.driver_request, "sim");
  EXPECT_EQ(std::get<SuiteCommand>(parse({"suite", "--jobs", "2", "--jobs", "3"})).settings.jobs, 3u);
}

TEST_F(CommandLineFlags, SuiteTakesEachOfItsFlags) {
  const std::string json = file("s.json"), markdown = file("s.md");
  const auto suite = std::get<SuiteCommand>(parse({"suite", "scenarios/conformance", "--impl", "reference,cupy",
                                                   "--jobs", "4", "--shard=2/3", "--json", json, "--markdown", markdown,
                                                   "--timeout", "9", "--sanitize", "on"}));
  EXPECT_EQ(suite.settings.roots, std::vector<std::string>{"scenarios/conformance"});
  EXPECT_EQ(suite.settings.implementations, (std::vector<std::string>{"reference", "cupy"}));
  EXPECT_EQ(suite.settings.jobs, 4u);
  EXPECT_EQ(suite.settings.shard_index, 2u);
  EXPECT_EQ(suite.settings.shard_count, 3u);
  EXPECT_EQ(suite.outputs.json_path, json);
  EXPECT_EQ(suite.outputs.markdown_path, markdown);
  EXPECT_EQ(suite.settings.run.timeout_override_seconds, 9.0);
  EXPECT_TRUE(suite.settings.run.sanitize);
  EXPECT_EQ(suite.outputs.command_line,
            "gilsan suite scenarios/conformance --impl reference,cupy --jobs 4 --shard=2/3 --json " + json + " --markdown " +
                markdown + " --timeout 9 --sanitize on");
}

TEST_F(CommandLineFlags, AfterADoubleDashASuitePathMayLookLikeAnOption) {
  EXPECT_EQ(std::get<SuiteCommand>(parse({"suite", "--driver", "sim", "--", "--odd"})).settings.roots,
            std::vector<std::string>{"--odd"});
}

TEST_F(CommandLineFlags, SuiteRefusesBadValues) {
  EXPECT_EQ(usage_error({"suite", "--jobs", "0"}), "--jobs must be a whole number from 1 to 256, not '0'");
  EXPECT_EQ(usage_error({"suite", "--jobs", "2x"}), "--jobs must be a whole number from 1 to 256, not '2x'");
  EXPECT_EQ(usage_error({"suite", "--shard", "3/2"}), "--shard must be i/n with 1 <= i <= n (e.g. 2/4), not '3/2'");
  EXPECT_EQ(usage_error({"suite", "--shard", "/2"}), "--shard must be i/n with 1 <= i <= n (e.g. 2/4), not '/2'");
  EXPECT_EQ(usage_error({"suite", "--impl", "reference,,cupy"}), "--impl takes a comma list of names, not 'reference,,cupy'");
  EXPECT_EQ(usage_error({"suite", "--impl", "cupyy"}).rfind("--impl: unknown implementation 'cupyy' (reference, cupy, ", 0), 0u);
  EXPECT_EQ(usage_error({"suite", "--max-rss", "lots"}),
            "--max-rss must be a size such as 512M or 2G (K, M, G: KiB, MiB, GiB), not 'lots'");
  EXPECT_EQ(usage_error({"suite", "--sanitize", "yes"}), "--sanitize must be on or off, not 'yes'");
  EXPECT_EQ(usage_error({"suite", "--filter"}), "gilsan suite: --filter needs a value");
  EXPECT_EQ(usage_error({"suite", "--driver="}), "--driver must be auto, real or sim, not ''");
}

TEST_F(CommandLineFlags, RunSaysWhichFlagIsMissingItsValueAsTyped) {
  EXPECT_EQ(usage_error({"run", "a.py", "-o"}), "gilsan run: -o needs a value");
  EXPECT_EQ(usage_error({"run", "a.py", "--output"}), "gilsan run: --output needs a value");
  // The program's words after -- are not the run's: --expect before them has no value.
  EXPECT_EQ(usage_error({"run", "--expect", "--", "python"}), "gilsan run: --expect needs a value");
}

TEST_F(CommandLineFlags, MergeTakesEachOfItsFlags) {
  const std::string json = file("m.json"), junit = file("m.xml"), markdown = file("m.md");
  const auto merge = std::get<MergeCommand>(parse({"merge", "a.json", "--compare", "sim.json", "b.json", "--json", json,
                                                   "--junit=" + junit, "--markdown", markdown, "--compare=other.json"}));
  EXPECT_EQ(merge.inputs, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(merge.compare_paths, (std::vector<std::string>{"sim.json", "other.json"}));
  EXPECT_EQ(merge.json_path, json);
  EXPECT_EQ(merge.junit_path, junit);
  EXPECT_EQ(merge.markdown_path, markdown);
  EXPECT_EQ(merge.command_line.rfind("gilsan merge a.json --compare sim.json b.json", 0), 0u);
}

TEST_F(CommandLineFlags, MergeRefusesWhatItDoesNotTake) {
  EXPECT_EQ(usage_error({"merge"}), "gilsan merge: which results? (gilsan merge A.json B.json ...)");
  EXPECT_EQ(usage_error({"merge", "a.json", "--driver", "sim"}), "gilsan merge: unknown option '--driver'");
  EXPECT_EQ(usage_error({"merge", "a.json", "--compare"}), "gilsan merge: --compare needs a value");
  EXPECT_EQ(usage_error({"merge", "a.json", "--json", "/nonexistent-gilsan/all.json"}),
            "--json /nonexistent-gilsan/all.json: the folder /nonexistent-gilsan does not exist");
}

TEST_F(CommandLineFlags, ExplainTakesOneNameAndNoOption) {
  EXPECT_EQ(std::get<ExplainCommand>(parse({"explain", "gil-driver-inversion"})).name, "gil-driver-inversion");
  EXPECT_EQ(std::get<ExplainCommand>(parse({"explain"})).name, "");
  EXPECT_EQ(usage_error({"explain", "a", "b"}), "gilsan explain takes one name, a deadlock class or a checker");
  EXPECT_EQ(usage_error({"explain", "--verbose"}), "gilsan explain: unknown option '--verbose'");
}

TEST_F(CommandLineFlags, HelpWinsOverABadFlagButNotOverAProgramsOwnHelp) {
  EXPECT_EQ(std::get<HelpCommand>(parse({"run", "--fast", "--help"})).command, "run");
  EXPECT_EQ(std::get<HelpCommand>(parse({"merge", "-h"})).command, "merge");
  const auto run = std::get<RunCommand>(parse({"run", "--", "python", "-h"}));
  EXPECT_EQ(run.settings.program, (std::vector<std::string>{"python", "-h"}));
}

// The hidden child modes take exactly what scenario_run.cpp writes for them.
TEST_F(CommandLineFlags, TheScenarioChildTakesWhatRunWrites) {
  const auto child = std::get<ChildArguments>(
      parse({"__scenario-child", "--driver", "real", "--impl", "cupy", "--python-env", "/venv", "--", "/s/--odd.py"}));
  EXPECT_EQ(child.driver_request, "real");
  EXPECT_EQ(child.implementation, "cupy");
  EXPECT_EQ(child.virtualenv, "/venv");
  EXPECT_EQ(child.scenario_path, "/s/--odd.py");
  EXPECT_EQ(usage_error({"__scenario-child", "--timeout", "3", "--", "s.py"}), "gilsan __scenario-child: unknown option '--timeout'");
  EXPECT_EQ(usage_error({"__scenario-child", "--driver", "gpu", "--", "s.py"}), "--driver must be auto, real or sim, not 'gpu'");
}

TEST_F(CommandLineFlags, TheProgramChildTakesOnlyADoubleDashAndTheProgram) {
  EXPECT_EQ(std::get<ProgramArguments>(parse({"__program-child", "--", "app", "--", "-x"})).command,
            (std::vector<std::string>{"app", "--", "-x"}));
  EXPECT_EQ(usage_error({"__program-child", "app"}), "__program-child is internal; use 'gilsan run -- COMMAND'");
  EXPECT_EQ(usage_error({"__program-child", "--"}), "__program-child: no command");
  EXPECT_EQ(usage_error({"__program-child"}), "__program-child: no command");
}

}  // namespace
}  // namespace gilsan
