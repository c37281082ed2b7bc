// gilsan merge --compare's parts: the driver version a run's platform names, which results may be
// compared (another kind of driver, or another version of the same one), and the comparison's labels.
// The command end to end: check_merge_compare.py.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/reports/conformance_markdown.h"
#include "harness/reports/suite_merge.h"

namespace gilsan {
namespace {

const std::string kOlder = std::string(GILSAN_RUNNER_TEST_DATA) + "/compare/real-580.159.04.json";
const std::string kNewer = std::string(GILSAN_RUNNER_TEST_DATA) + "/compare/real-590.48.01.json";

std::vector<ScenarioResult> read(const std::string& path) {
  RunSettings settings;
  return read_suite_results({path}, settings);
}

// The results of one file, as --compare reads them.
ComparedRun compared(const std::string& path) {
  RunSettings settings;
  ComparedRun run;
  run.results = read_suite_results({path}, settings);
  run.driver = settings.driver_request;
  return run;
}

// What check_comparable says of comparing `other` with `results` of `driver`, "" when it accepts.
std::string refusal(const ComparedRun& other, const std::string& driver, const std::vector<ScenarioResult>& results) {
  try {
    check_comparable(other, driver, results);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(MergeCompare, TheDriverVersionIsWhatThePlatformNamesAfterDriver) {
  EXPECT_EQ(driver_version_in("NVIDIA H200, CUDA driver API 13.0, driver 580.159.04; Python 3.12.3"), "580.159.04");
  EXPECT_EQ(driver_version_in("NVIDIA H100 80GB HBM3, CUDA driver API 12.8, driver 570.86.15"), "570.86.15");
  // No NVML (and the simulated driver has none): the API version is not the driver's.
  EXPECT_EQ(driver_version_in("NVIDIA H200 (gilsan simulated), CUDA driver API 13.0; Python 3.12.3"), "");
  EXPECT_EQ(driver_version_in(""), "");
  EXPECT_EQ(reported_driver_version(read(kNewer)), "590.48.01");
}

TEST(MergeCompare, TwoVersionsOfTheRealDriverAreComparedAndLabelledByVersion) {
  const std::vector<ScenarioResult> older = read(kOlder);
  const ComparedRun newer = compared(kNewer);
  ASSERT_EQ(refusal(newer, "real", older), "");
  const std::string text = conformance_markdown(older, "real", "gilsan merge", &newer);
  EXPECT_NE(text.find("## Where the real 580.159.04 and the real 590.48.01 driver differ\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| scenario | implementation | real 580.159.04 | real 590.48.01 |\n"), std::string::npos) << text;
}

TEST(MergeCompare, RunsThatCannotBeToldApartAreRefused) {
  const std::string lacking =
      "needs results of another driver, driver version, gilsan or implementation versions: both are of the real driver";
  EXPECT_EQ(refusal(compared(kOlder), "real", read(kOlder)), lacking + " 580.159.04");
  std::vector<ScenarioResult> unnamed = read(kOlder);
  for (ScenarioResult& result : unnamed) result.run.report.platform = "NVIDIA H200, CUDA driver API 13.0";
  EXPECT_EQ(refusal(compared(kNewer), "real", unnamed), lacking + ", and the merged results name no driver version in their platform");
}

// The same driver run by two gilsans (a gilsan update): compared, each side labelled by its gilsan.
TEST(MergeCompare, TwoGilsansOnOneDriverAreComparedAndLabelledByGilsan) {
  std::vector<ScenarioResult> before = read(kOlder);
  ComparedRun after = compared(kOlder);
  for (ScenarioResult& result : before) result.gilsan_version = "0.1.0+g1111111";
  for (ScenarioResult& result : after.results) result.gilsan_version = "0.1.0+g2222222";
  after.results.front().outcome = Outcome{OutcomeKind::Exception, "KeyError"};
  ASSERT_EQ(refusal(after, "real", before), "");
  const std::string text = conformance_markdown(before, "real", "gilsan merge", &after);
  EXPECT_NE(text.find("| real 580.159.04, gilsan 0.1.0+g1111111 | real 580.159.04, gilsan 0.1.0+g2222222 |\n"),
            std::string::npos) << text;
  // One gilsan on both sides tells nothing apart.
  for (ScenarioResult& result : after.results) result.gilsan_version = "0.1.0+g1111111";
  EXPECT_NE(refusal(after, "real", before), "");
}

// One driver and one gilsan, another release of a peer: compared, each side labelled by the packages
// only it ran, in a heading of their own.
TEST(MergeCompare, TwoReleasesOfAPeerAreComparedAndLabelledByTheirPackages) {
  const std::vector<ScenarioResult> pinned = read(kOlder);
  ComparedRun newest = compared(kOlder);
  for (ScenarioResult& result : newest.results) {
    if (result.run.report.implementation_version == "cupy-cuda13x 14.2.0")
      result.run.report.implementation_version = "cupy-cuda13x 14.3.0";
  }
  EXPECT_EQ(packages_only_in(pinned, newest.results), std::vector<std::string>{"cupy-cuda13x 14.2.0"});
  newest.results.back().outcome = Outcome{OutcomeKind::Exception, "KeyError"};
  ASSERT_EQ(refusal(newest, "real", pinned), "");
  const std::string text = conformance_markdown(pinned, "real", "gilsan merge", &newest);
  EXPECT_NE(text.find("## Where cupy-cuda13x 14.2.0 and cupy-cuda13x 14.3.0 differ (real 580.159.04 driver)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("| scenario | implementation | cupy-cuda13x 14.2.0 | cupy-cuda13x 14.3.0 |\n"),
            std::string::npos) << text;
}

// A results file says which gilsan wrote it, and merging keeps it.
TEST(MergeCompare, AResultsFileNamesTheGilsanThatRanIt) {
  const std::string text =
      R"({"schema": "gilsan-suite-results/1", "driver": "sim", "platform": "", "gilsan": "0.1.0+gabcdef0",
          "results": [{"scenario": "a.py", "implementation": null, "expect": "pass", "outcome": "pass",
                       "status": "passed", "seconds": 0.1}]})";
  const SuiteResultsDocument document = parse_suite_results(text, "x.json");
  ASSERT_EQ(document.results.size(), 1u);
  EXPECT_EQ(document.results[0].gilsan_version, "0.1.0+gabcdef0");
  EXPECT_EQ(reported_gilsan_version(document.results), "0.1.0+gabcdef0");
}

// Another kind of driver tells the runs apart by itself: the labels stay the kinds (docs/conformance.md).
TEST(MergeCompare, AnotherKindOfDriverIsLabelledByItsKind) {
  const std::vector<ScenarioResult> real = read(kOlder);
  ComparedRun sim = compared(kNewer);
  sim.driver = "sim";
  const std::string text = conformance_markdown(real, "real", "gilsan merge", &sim);
  EXPECT_NE(text.find("## Where the real and the sim driver differ\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| scenario | implementation | real | sim |\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace gilsan
