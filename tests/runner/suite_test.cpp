// The suite's parts that need no child: which runs a suite makes (scenario x implementation, shards),
// the conformance matrix and failure excerpts it prints, and merging shards' JSON back together.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/reports/conformance_markdown.h"
#include "harness/reports/suite_matrix.h"
#include "harness/reports/suite_merge.h"
#include "harness/reports/suite_results_json.h"
#include "harness/runner/suite.h"

namespace gilsan {
namespace {

namespace fs = std::filesystem;

class TemporaryFolder {
 public:
  TemporaryFolder() : path_(fs::temp_directory_path() / ("gilsan-suite-test-" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TemporaryFolder() { fs::remove_all(path_); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::string> names_of(const std::vector<SuiteItem>& items) {
  std::vector<std::string> names;
  for (const SuiteItem& item : items)
    names.push_back(fs::path(item.scenario).filename().string() + (item.implementation ? "[" + *item.implementation + "]" : ""));
  return names;
}

TEST(SuiteItems, AConformanceScenarioRunsOnceForEachImplementationItIsWrittenFor) {
  TemporaryFolder folder;
  folder.write("a_plain.py", "# gilsan: expect = pass\n");
  folder.write("b_any.py", "# gilsan: expect = pass\n# gilsan: implementations = any\n");
  folder.write("c_two.py", "# gilsan: expect = pass\n# gilsan: implementations = cupy, reference\n");
  folder.write("_helper.py", "x = 1\n");
  SuiteSettings settings;
  settings.roots = {folder.path().string()};
  settings.implementations = {"reference", "cuda-core", "cupy"};
  EXPECT_EQ(names_of(suite_items(settings)),
            (std::vector<std::string>{"a_plain.py", "b_any.py[reference]", "b_any.py[cuda-core]", "b_any.py[cupy]",
                                      "c_two.py[reference]", "c_two.py[cupy]"}));

  settings.implementations.clear();  // every built-in implementation
  EXPECT_EQ(suite_items(settings).size(), 1u + 5u + 2u);
}

TEST(SuiteItems, ShardsSplitTheRunsWithoutOverlapOrGap) {
  TemporaryFolder folder;
  for (const char* name : {"a.py", "b.py", "c.py", "d.py", "e.py"}) folder.write(name, "# gilsan: expect = pass\n");
  SuiteSettings settings;
  settings.roots = {folder.path().string()};
  settings.shard_count = 2;
  settings.shard_index = 1;
  EXPECT_EQ(names_of(suite_items(settings)), (std::vector<std::string>{"a.py", "c.py", "e.py"}));
  settings.shard_index = 2;
  EXPECT_EQ(names_of(suite_items(settings)), (std::vector<std::string>{"b.py", "d.py"}));
}

TEST(SuiteItems, AMalformedHeaderStopsTheSuiteBeforeAnythingRuns) {
  TemporaryFolder folder;
  folder.write("a.py", "# gilsan: expect = pass\n");
  const fs::path bad = folder.write("b.py", "# gilsan: expect = pass\n# gilsan: capabilities = capture\n");
  SuiteSettings settings;
  settings.roots = {folder.path().string()};
  try {
    suite_items(settings);
    ADD_FAILURE() << "a malformed header was accepted";
  } catch (const ScenarioInputError& error) {
    EXPECT_EQ(error.line(), 2);
  }
}

TEST(SuiteJobs, OneAtATimeOnTheRealDriverUnlessAsked) {
  SuiteSettings settings;
  settings.run.driver = RunDriver{"real", "real: requested", {}};
  EXPECT_EQ(suite_jobs(settings), 1u);
  settings.jobs = 4;
  EXPECT_EQ(suite_jobs(settings), 4u);
  settings.jobs = 0;
  settings.run.driver = RunDriver{"sim", "sim: requested", {}};
  EXPECT_EQ(suite_jobs(settings), std::max(1u, std::thread::hardware_concurrency()));
}

ScenarioResult result_of(const std::string& scenario, std::optional<std::string> implementation, Outcome expect,
                         Outcome outcome) {
  ScenarioResult result;
  result.scenario = scenario;
  result.implementation = std::move(implementation);
  result.header.expect = expect;
  result.outcome = outcome;
  result.matched = expect == outcome;
  return result;
}

const Outcome kPass{OutcomeKind::Pass, ""};
const Outcome kInversion{OutcomeKind::Deadlock, "gil-driver-inversion"};

TEST(SuiteMatrix, OneRowPerScenarioOneColumnPerImplementation) {
  std::vector<ScenarioResult> results = {
      result_of("plain.py", std::nullopt, kPass, kPass),
      result_of("hang.py", "reference", kInversion, kInversion),
      result_of("hang.py", "cupy", kInversion, kPass),
      result_of("order.py", "reference", kPass, kPass),
      result_of("order.py", "cupy", kPass, Outcome{OutcomeKind::Skipped, "cupy is not installed"}),
  };
  EXPECT_EQ(conformance_matrix(results),
            "conformance (ok: as expected, FAIL: not, skip: its reason is on a SKIP line)\n"
            "scenario  reference  cupy\n"
            "hang.py   ok         FAIL\n"
            "order.py  ok         skip\n");
  EXPECT_EQ(conformance_matrix({results[0]}), "");
}

TEST(SuiteMatrix, AFailureShowsTheEndOfTheChildsErrorOutput) {
  ScenarioResult failed = result_of("order.py", "cupy", kPass, Outcome{OutcomeKind::Exception, "RuntimeError"});
  failed.run.stderr_text = "noise 1\nnoise 2\nTraceback (most recent call last):\n  File \"order.py\", line 3\n"
                           "    launch()\n  File \"x.py\", line 9\nRuntimeError: the last line\n";
  const std::string excerpt = failure_excerpts({result_of("ok.py", std::nullopt, kPass, kPass), failed});
  EXPECT_EQ(excerpt.substr(0, excerpt.find('\n') + 1), "failures:\n");
  EXPECT_NE(excerpt.find("order.py [cupy]"), std::string::npos) << excerpt;
  EXPECT_NE(excerpt.find("    RuntimeError: the last line\n"), std::string::npos) << excerpt;
  EXPECT_NE(excerpt.find("    Traceback (most recent call last):\n"), std::string::npos) << excerpt;
  EXPECT_EQ(excerpt.find("noise 1"), std::string::npos) << excerpt;
  EXPECT_EQ(failure_excerpts({result_of("ok.py", std::nullopt, kPass, kPass)}), "");
}

TEST(SuiteMerge, JoinsShardsInOrderAndRefusesAnOverlap) {
  TemporaryFolder folder;
  RunSettings settings;
  settings.driver = RunDriver{"sim", "sim: requested", {}};
  settings.driver_request = "sim";
  const auto first = folder.write("1.json", suite_results_json({result_of("a.py", "reference", kPass, kPass)}, settings, 1));
  const auto second = folder.write(
      "2.json", suite_results_json({result_of("a.py", "cupy", kPass, kInversion), result_of("b.py", std::nullopt, kPass, kPass)},
                                   settings, 1));
  RunSettings merged;
  const std::vector<ScenarioResult> results = read_suite_results({first.string(), second.string()}, merged);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[1].implementation, "cupy");
  EXPECT_EQ(results[1].outcome, kInversion);
  EXPECT_EQ(results[1].status(), ResultStatus::Failed);
  EXPECT_EQ(results[2].status(), ResultStatus::Passed);
  EXPECT_EQ(merged.driver_request, "sim");

  RunSettings again;
  try {
    read_suite_results({first.string(), second.string(), first.string()}, again);
    ADD_FAILURE() << "overlapping shards were merged";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), first.string() + ": a.py is in two shards");
  }
  const auto broken = folder.write("3.json", "{\"schema\": \"something-else\"}");
  RunSettings other;
  EXPECT_THROW(read_suite_results({broken.string()}, other), std::runtime_error);
}

TEST(SuiteMerge, ADocumentsVoidRunsComeBackSkippedWithTheirReason) {
  TemporaryFolder folder;
  RunSettings settings;
  settings.driver = RunDriver{"real", "real: requested", {}};
  std::string text = suite_results_json({result_of("scenarios/conformance/a.py", "cupy", kPass, kInversion)}, settings, 1);
  text.insert(text.find('{') + 1, "\"void\": {\"conformance/a.py [cupy]\": \"shared the GPU\"},");
  const auto path = folder.write("void.json", text);
  RunSettings merged;
  const std::vector<ScenarioResult> results = read_suite_results({path.string()}, merged);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), ResultStatus::Skipped);
  EXPECT_EQ(results[0].outcome.detail, "void (was deadlock:gil-driver-inversion): shared the GPU");
}

TEST(ConformanceMarkdown, MatrixFailuresSkipsAndWhereTheDriversDiffer) {
  ScenarioResult failed = result_of("order.py", "cupy", kPass, Outcome{OutcomeKind::Exception, "RuntimeError"});
  failed.run.stderr_text = "RuntimeError: out of order\n";
  failed.run.report.implementation_version = "cupy-cuda13x 14.2.0";
  failed.run.report.platform = "NVIDIA H200, CUDA driver API 13.0; Python 3.12.3";
  const std::vector<ScenarioResult> real = {
      result_of("order.py", "reference", kPass, kPass), failed,
      result_of("hang.py", "reference", kInversion, kInversion),
      result_of("hang.py", "cupy", kInversion, Outcome{OutcomeKind::Skipped, "cupy is not installed"})};
  const ComparedRun sim{{result_of("order.py", "reference", kPass, kPass), result_of("order.py", "cupy", kPass, kPass),
                         result_of("hang.py", "reference", kInversion, kPass)},
                        "sim"};
  const std::string text = conformance_markdown(real, "real", "gilsan merge r.json", &sim);
  EXPECT_NE(text.find("- Platform: NVIDIA H200, CUDA driver API 13.0; Python 3.12.3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("- `cupy`: cupy-cuda13x 14.2.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| order.py | pass | **FAIL** `exception:RuntimeError` |"), std::string::npos) << text;
  EXPECT_NE(text.find("| hang.py | found `deadlock:gil-driver-inversion` | skip |"), std::string::npos) << text;
  EXPECT_NE(text.find("- order.py: expected `pass`, got `exception:RuntimeError`\n\n  ```\n  RuntimeError: out of order\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("| hang.py | cupy | cupy is not installed |"), std::string::npos) << text;
  EXPECT_NE(text.find("3 runs ran on both drivers"), std::string::npos) << text;
  EXPECT_NE(text.find("| order.py | cupy | `exception:RuntimeError` | `pass` |"), std::string::npos) << text;
  EXPECT_NE(text.find("| hang.py | reference | `deadlock:gil-driver-inversion` | `pass` |"), std::string::npos) << text;
  EXPECT_EQ(text.find("| order.py | reference | `pass`"), std::string::npos) << text;
}

}  // namespace
}  // namespace gilsan
