#include "harness/reports/sarif_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace gilsan {
namespace {

using nlohmann::json;

// The working folder: the test's relative scenario paths lie below it.
std::string root() { return std::filesystem::current_path().string(); }

ScenarioResult failed_run(Outcome outcome) {
  ScenarioResult result;
  result.scenario = "scenarios/x/inversion.py";
  result.header.expect = Outcome{OutcomeKind::Pass, ""};
  result.outcome = std::move(outcome);
  result.matched = false;
  return result;
}

// A gilsan-sanitizer-report/1 document with one lock-order cycle whose second edge's stack names line 14
// of the scenario (docs/sanitizer.md).
std::string cycle_report() {
  const json report = {
      {"id", 1}, {"checker", "lock-order-cycle"}, {"class", "gil-driver-inversion"},
      {"summary", "the GIL -> completion of stream 0x5001 -> the GIL"},
      {"cycle", json::array({{{"kind", "gil"}}, {{"kind", "stream-completion"}}})},
      {"edges", json::array({{{"from", 0}, {"to", 1}, {"sentence", "main holds the GIL and waits for the stream"},
                              {"stack", json::array({"cuStreamSynchronize", "scenarios/x/inversion.py:14 <module>"})}},
                             {{"from", 1}, {"to", 0}, {"sentence", "the callback thread waits for the GIL"},
                              {"stack", json::array({"PyGILState_Ensure"})}}})},
      {"thread", nullptr}, {"call", nullptr}, {"host_function", nullptr}, {"message", nullptr},
      {"stack", json::array()}};
  return json{{"schema", "gilsan-sanitizer-report/1"}, {"complete", true}, {"reports", json::array({report})}}.dump();
}

TEST(SarifLog, ASanitizerReportIsAResultWithItsCheckerAndCycle) {
  ScenarioResult run = failed_run(Outcome{OutcomeKind::Report, "lock-order-cycle"});
  run.sanitizer = SanitizerFindings{{"lock-order-cycle"}, "text", cycle_report(), std::nullopt};
  const json log = json::parse(sarif_log({run}, root()));
  EXPECT_EQ(log["version"], "2.1.0");
  const json& results = log["runs"][0]["results"];
  // The report is the outcome: one result, not two.
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["ruleId"], "lock-order-cycle");
  const json& location = results[0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "scenarios/x/inversion.py");
  EXPECT_EQ(location["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"], "file://" + root() + "/");
  EXPECT_EQ(location["region"]["startLine"], 14);
  const json& flows = results[0]["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0]["locations"][0]["location"]["message"]["text"], "main holds the GIL and waits for the stream");
  EXPECT_NE(results[0]["message"]["text"].get<std::string>().find("expected pass, got report:lock-order-cycle"),
            std::string::npos);
  const json& rule = log["runs"][0]["tool"]["driver"]["rules"][0];
  EXPECT_EQ(rule["id"], "lock-order-cycle");
  EXPECT_TRUE(rule.contains("fullDescription"));
  EXPECT_NE(rule["help"]["markdown"].get<std::string>().find("# lock-order-cycle"), std::string::npos);
}

TEST(SarifLog, AnOutcomeWithoutAReportIsARuleOfItsClassOrKind) {
  ScenarioResult deadlock = failed_run(Outcome{OutcomeKind::Deadlock, "callback-self-wait"});
  ScenarioResult exception = failed_run(Outcome{OutcomeKind::Exception, "KeyError"});
  exception.scenario = "b.py";
  const json log = json::parse(sarif_log({deadlock, exception}, root()));
  const json& results = log["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["ruleId"], "callback-self-wait");
  EXPECT_EQ(results[1]["ruleId"], "exception");
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
  const json& rules = log["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0]["id"], "callback-self-wait");  // from docs/explain
  EXPECT_TRUE(rules[0].contains("help"));
  EXPECT_EQ(rules[1]["id"], "exception");  // no page: a short description only
  EXPECT_FALSE(rules[1].contains("help"));
}

// The line the report names: the raise (the innermost frame of the scenario in the traceback), and the
// blocking call of a hang (the scenario's frame in the stack of the thread the cycle's first step names).
TEST(SarifLog, AResultSitsOnTheLineItsReportNames) {
  ScenarioResult exception = failed_run(Outcome{OutcomeKind::Exception, "KeyError"});
  exception.run.report.exception = ExceptionRecord{PythonTypeName{"builtins", "KeyError"},
                                                   "Traceback (most recent call last):\n"
                                                   "  File \"scenarios/x/inversion.py\", line 30, in <module>\n"
                                                   "  File \"scenarios/x/inversion.py\", line 12, in lookup\n"
                                                   "KeyError: 'x'\n"};
  ScenarioResult deadlock = failed_run(Outcome{OutcomeKind::Deadlock, "gil-driver-inversion"});
  deadlock.watchdog = WatchdogFindings{};
  deadlock.watchdog->text =
      "gilsan: hang in process 7: gil-driver-inversion\n"
      "  cycle:\n"
      "    1. thread 9 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x1)\n"
      "    2. stream 0x1 waits for host function #1 (python, gilsan, inversion.py:5 callback) on thread 8\n"
      "threads:\n"
      "  thread 8 (callback thread) 'exe', state S\n"
      "    Python stack (most recent call first):\n"
      "      scenarios/x/inversion.py:6 in callback\n"
      "  thread 9 (main) 'exe', state S\n"
      "    Python stack (most recent call first):\n"
      "      scenarios/x/inversion.py:21 in <module>\n";
  const json log = json::parse(sarif_log({exception, deadlock}, root()));
  const json& results = log["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 12);
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 21);
}

TEST(SarifLog, AScenarioOutsideTheRootGetsAnAbsoluteFileUri) {
  ScenarioResult outside = failed_run(Outcome{OutcomeKind::Exception, "KeyError"});
  outside.scenario = "/elsewhere/my scenario.py";
  const json log = json::parse(sarif_log({outside}, root()));
  const json& location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(location["uri"], "file:///elsewhere/my%20scenario.py");
  EXPECT_FALSE(location.contains("uriBaseId"));
}

TEST(SarifLog, RunsThatMetTheirExpectationGiveNoResults) {
  ScenarioResult passed = failed_run(Outcome{OutcomeKind::Pass, ""});
  passed.matched = true;
  const json log = json::parse(sarif_log({passed}, root()));
  EXPECT_TRUE(log["runs"][0]["results"].empty());
  EXPECT_TRUE(log["runs"][0]["tool"]["driver"]["rules"].empty());
}

}  // namespace
}  // namespace gilsan
