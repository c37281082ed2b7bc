#include "harness/command/command_line.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/runner/parse_command_line_for_test.h"

namespace gilsan {
namespace {

class CommandLine : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("gilsan-cli-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    profile_ = (folder_ / "profile.json").string();
    std::filesystem::copy_file(GILSAN_DEFAULT_PROFILE_PATH, profile_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::filesystem::path folder_;
  std::string profile_;
};

TEST_F(CommandLine, RunWithEveryOption) {
  const Command command = parse({"run", "s.py", "--driver", "sim", "--profile=" + profile_, "--timeout", "2.5",
                                 "--report", "json", "-o", "out.json"});
  const auto* run = std::get_if<RunCommand>(&command);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->scenario, "s.py");
  EXPECT_EQ(run->settings.driver_request, "sim");
  EXPECT_EQ(run->settings.profile_path, std::filesystem::absolute(profile_).string());
  EXPECT_EQ(run->settings.timeout_override_seconds, 2.5);
  EXPECT_EQ(run->format, ReportFormat::Json);
  EXPECT_EQ(run->output_path, "out.json");
  EXPECT_FALSE(run->settings.python.site_packages.has_value());
}

TEST_F(CommandLine, AProfileIsParsedAndOutputsProvenWritableBeforeAnythingRuns) {
  const std::string bad_profile = (folder_ / "bad.json").string();
  std::ofstream(bad_profile) << "{}";
  EXPECT_EQ(usage_error({"suite", "--profile", bad_profile}), "--profile " + bad_profile + ":1: missing key 'schema' in profile");
  EXPECT_EQ(usage_error({"run", "s.py", "-o", "/nonexistent-gilsan/out.txt"}),
            "-o /nonexistent-gilsan/out.txt: the folder /nonexistent-gilsan does not exist");
  EXPECT_EQ(usage_error({"suite", "--junit", folder_.string()}), "--junit " + folder_.string() + ": " + folder_.string() + " is a folder");
  const std::string junit = (folder_ / "suite.xml").string();
  parse({"suite", "--junit", junit});
  EXPECT_FALSE(std::filesystem::exists(junit)) << "the check must leave no file behind";
}

TEST_F(CommandLine, WatchdogOptions) {
  const Command command = parse({"run", "s.py", "--quiet-ms", "250", "--dot=graph.dot"});
  const auto& run = std::get<RunCommand>(command);
  EXPECT_EQ(run.settings.watchdog.quiet, std::chrono::milliseconds(250));
  EXPECT_EQ(run.settings.watchdog.dot_path, "graph.dot");
  const Command suite_command = parse({"suite", "--quiet-ms=1000"});
  EXPECT_EQ(std::get<SuiteCommand>(suite_command).settings.run.watchdog.quiet, std::chrono::milliseconds(1000));
  EXPECT_EQ(usage_error({"run", "a.py", "--quiet-ms", "0"}),
            "--quiet-ms must be a whole number of milliseconds from 1 to 3600000, not '0'");
  EXPECT_EQ(usage_error({"run", "a.py", "--quiet-ms", "1.5"}),
            "--quiet-ms must be a whole number of milliseconds from 1 to 3600000, not '1.5'");
  EXPECT_EQ(usage_error({"suite", "--dot", "x.dot"}), "gilsan suite: unknown option '--dot'");
}

TEST_F(CommandLine, RunDefaults) {
  const Command command = parse({"run", "s.py"});
  const auto& defaults = std::get<RunCommand>(command);
  EXPECT_EQ(defaults.settings.driver_request, "auto");
  EXPECT_FALSE(defaults.settings.profile_path.has_value());
  EXPECT_FALSE(defaults.settings.timeout_override_seconds.has_value());
  EXPECT_EQ(defaults.format, ReportFormat::Text);
  EXPECT_FALSE(defaults.output_path.has_value());
  EXPECT_EQ(defaults.settings.watchdog.quiet, watchdog::kDefaultQuiet);
  EXPECT_FALSE(defaults.settings.watchdog.dot_path.has_value());
}

// After --, gilsan run runs a program as it is: the rest is its command line, options included.
TEST_F(CommandLine, DoubleDashStartsAProgram) {
  const Command command = parse({"run", "--driver", "real", "--expect", "deadlock:unknown", "--", "python", "app.py",
                                 "--help", "--driver", "x"});
  const auto& run = std::get<RunCommand>(command);
  EXPECT_TRUE(run.scenario.empty());
  EXPECT_EQ(run.settings.program, (std::vector<std::string>{"python", "app.py", "--help", "--driver", "x"}));
  EXPECT_EQ(run.settings.driver_request, "real");
  EXPECT_EQ(run.expect, "deadlock:unknown");
}

TEST_F(CommandLine, AScenarioWhoseNameLooksLikeAnOptionTakesAPath) {
  const Command command = parse({"run", "--driver", "real", "./--odd-name.py"});
  EXPECT_EQ(std::get<RunCommand>(command).scenario, "./--odd-name.py");
  EXPECT_TRUE(std::get<RunCommand>(command).settings.program.empty());
}

TEST_F(CommandLine, TheProgramChildTakesTheCommandLine) {
  const Command command = parse({kProgramChildCommand, "--", "python", "-c", "pass"});
  EXPECT_EQ(std::get<ProgramArguments>(command).command, (std::vector<std::string>{"python", "-c", "pass"}));
}

TEST_F(CommandLine, SuiteWithPathsFilterAndJunit) {
  const Command command = parse({"suite", "a", "b", "--filter", "callbacks", "--junit", "r.xml", "--driver=sim"});
  const auto& suite = std::get<SuiteCommand>(command);
  EXPECT_EQ(suite.settings.roots, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(suite.settings.filter, "callbacks");
  EXPECT_EQ(suite.outputs.junit_path, "r.xml");
  EXPECT_EQ(suite.settings.run.driver_request, "sim");
}

TEST_F(CommandLine, SuiteDefaultsToTheScenarioFolder) {
  const Command command = parse({"suite"});
  EXPECT_EQ(std::get<SuiteCommand>(command).settings.roots, std::vector<std::string>{default_scenario_folder()});
}

TEST_F(CommandLine, Help) {
  EXPECT_TRUE(std::holds_alternative<HelpCommand>(parse({"--help"})));
  EXPECT_TRUE(std::holds_alternative<HelpCommand>(parse({"run", "-h"})));
  EXPECT_NE(usage_text().find("exit codes"), std::string::npos);
}

TEST_F(CommandLine, HelpOfOneCommand) {
  EXPECT_EQ(std::get<HelpCommand>(parse({"help"})).command, "");
  EXPECT_EQ(std::get<HelpCommand>(parse({"help", "suite"})).command, "suite");
  EXPECT_EQ(std::get<HelpCommand>(parse({"suite", "--filter", "x", "--help"})).command, "suite");
  EXPECT_EQ(std::get<HelpCommand>(parse({"explain", "-h"})).command, "explain");
  EXPECT_EQ(usage_error({"help", "bogus"}), "gilsan help: no command 'bogus'");
  EXPECT_EQ(usage_error({"help", "run", "suite"}), "gilsan help takes one command name");
}

TEST_F(CommandLine, UnderTakesAToolForTheChild) {
  const auto run = std::get<RunCommand>(parse({"run", "s.py", "--under", "env 'A=1 2'"}));
  ASSERT_EQ(run.settings.under.size(), 2u);
  EXPECT_TRUE(run.settings.under[0].ends_with("/env"));
  EXPECT_EQ(run.settings.under[1], "A=1 2");
  const auto suite = std::get<SuiteCommand>(parse({"suite", "--under=env"}));
  EXPECT_EQ(suite.settings.run.under.size(), 1u);
  EXPECT_EQ(usage_error({"run", "s.py", "--under", ""}), "--under needs a command, such as --under 'valgrind --tool=helgrind'");
  EXPECT_EQ(usage_error({"run", "s.py", "--under", "no-such-tool-gilsan"}), "--under: no-such-tool-gilsan: not found on PATH");
}

TEST_F(CommandLine, SarifForRunSuiteAndMerge) {
  const std::string file = (folder_ / "out.sarif").string();
  EXPECT_EQ(std::get<RunCommand>(parse({"run", "s.py", "--sarif", file})).sarif_path, file);
  EXPECT_EQ(std::get<SuiteCommand>(parse({"suite", "--sarif", file})).outputs.sarif_path, file);
  EXPECT_EQ(std::get<MergeCommand>(parse({"merge", "a.json", "--sarif", file})).sarif_path, file);
  EXPECT_NE(usage_error({"suite", "--sarif", "/nonexistent-gilsan/x.sarif"}).find("--sarif /nonexistent-gilsan/x.sarif: "),
            std::string::npos);
}

TEST_F(CommandLine, HiddenChildCommand) {
  const Command command = parse({"__scenario-child", "--driver", "sim", "--python-env", "/venv", "--", "s.py"});
  const auto& child = std::get<ChildArguments>(command);
  EXPECT_EQ(child.scenario_path, "s.py");
  EXPECT_EQ(child.driver_request, "sim");
  EXPECT_EQ(child.virtualenv, "/venv");
}

TEST_F(CommandLine, UsageErrors) {
  EXPECT_EQ(usage_error({}), "no command given (gilsan run, gilsan suite)");
  EXPECT_EQ(usage_error({"run", "--"}), "gilsan run: which program? (gilsan run [options] -- COMMAND [ARGS...])");
  EXPECT_EQ(usage_error({"run", "a.py", "--", "python"}),
            "gilsan run: a scenario or a program after --, not both ('a.py')");
  EXPECT_EQ(usage_error({"run", "a.py", "--expect", "pass"}),
            "gilsan run: --expect is for a program run with -- (a scenario says it in its header)");
  EXPECT_EQ(usage_error({"walk"}), "unknown command 'walk'");
  EXPECT_EQ(usage_error({"run"}), "gilsan run: which scenario? (gilsan run SCENARIO.py)");
  EXPECT_EQ(usage_error({"run", "a.py", "b.py"}), "gilsan run: one scenario at a time (use gilsan suite for several)");
  EXPECT_EQ(usage_error({"run", "a.py", "--fast"}), "gilsan run: unknown option '--fast'");
  EXPECT_EQ(usage_error({"suite", "--report", "json"}), "gilsan suite: unknown option '--report'");
  EXPECT_EQ(usage_error({"run", "a.py", "--driver"}), "gilsan run: --driver needs a value");
  EXPECT_EQ(usage_error({"run", "a.py", "--driver", "gpu"}), "--driver must be auto, real or sim, not 'gpu'");
  EXPECT_EQ(usage_error({"run", "a.py", "--timeout", "0"}), "--timeout must be a positive number of seconds, not '0'");
  EXPECT_EQ(usage_error({"run", "a.py", "--timeout=soon"}),
            "--timeout must be a positive number of seconds, not 'soon'");
  EXPECT_EQ(usage_error({"run", "a.py", "--report", "xml"}), "--report must be text, full or json, not 'xml'");
  EXPECT_EQ(usage_error({"run", "a.py", "--profile", "/nonexistent/p.json"}),
            "--profile /nonexistent/p.json: no such file");
  EXPECT_EQ(usage_error({"run", "a.py", "--python-env", "/nonexistent/venv"}),
            "--python-env /nonexistent/venv: not a folder");
  EXPECT_EQ(usage_error({"__scenario-child", "--driver", "sim"}),
            "__scenario-child is internal; use 'gilsan run SCENARIO.py'");
}

TEST_F(CommandLine, PythonEnvMustMatchThePythonVersion) {
  const std::string venv = (folder_ / "venv").string();
  std::filesystem::create_directories(folder_ / "venv" / "lib" / "python2.7" / "site-packages");
  EXPECT_EQ(usage_error({"run", "a.py", "--python-env", venv}),
            "--python-env " + venv + ": no lib/python" GILSAN_PYTHON_VERSION
            "/site-packages (gilsan embeds Python " GILSAN_PYTHON_VERSION "; the virtualenv must be made with that version)");

  const auto site_packages = folder_ / "venv" / "lib" / ("python" GILSAN_PYTHON_VERSION) / "site-packages";
  std::filesystem::create_directories(site_packages);
  const Command command = parse({"run", "a.py", "--python-env", venv});
  const PythonEnvironment& python = std::get<RunCommand>(command).settings.python;
  EXPECT_EQ(python.site_packages, site_packages.string());
  EXPECT_EQ(python.virtualenv, venv);
  EXPECT_EQ(python.executable, GILSAN_PYTHON_EXECUTABLE);  // this fake virtualenv has no bin/python
}

}  // namespace
}  // namespace gilsan
