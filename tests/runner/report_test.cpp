// The run report's text, JSON and one-line forms, and the suite's JUnit XML.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "harness/reports/junit_report.h"
#include "harness/reports/run_report.h"

namespace gilsan {
namespace {

ScenarioResult failed_result() {
  ScenarioResult result;
  result.scenario = "scenarios/callbacks/raise.py";
  result.header.expect = {OutcomeKind::Pass, ""};
  result.header.description = "a callback raises";
  result.timeout_seconds = 20;
  result.outcome = {OutcomeKind::Exception, "ValueError"};
  result.matched = false;
  result.run.wait_status = W_EXITCODE(1, 0);
  result.run.elapsed = std::chrono::milliseconds(1500);
  result.run.stdout_text = "printed <text> & more\n";
  result.run.stderr_text = "Traceback...\n";
  result.run.report.python_version = "3.11.2";
  result.run.report.exception = ExceptionRecord{{"builtins", "ValueError"}, "Traceback...\nValueError: bad\n"};
  result.run.report.unraisables.push_back({{"builtins", "RuntimeError"}, "from __del__", "<Holder>", "Exception ignored in"});
  result.run.report.skipped_host_functions = 2;
  return result;
}

TEST(RunReport, OneLineForms) {
  ScenarioResult result = failed_result();
  EXPECT_EQ(one_line_report(result), "FAIL  scenarios/callbacks/raise.py  expected pass, got exception:ValueError (1.50 s)");
  result.header.expect = {OutcomeKind::Exception, "ValueError"};
  result.matched = true;
  EXPECT_EQ(one_line_report(result), "PASS  scenarios/callbacks/raise.py  exception:ValueError (1.50 s)");
  result.outcome = {OutcomeKind::Skipped, "needs cupy: no module named 'cupy'"};
  EXPECT_EQ(one_line_report(result), "SKIP  scenarios/callbacks/raise.py  needs cupy: no module named 'cupy'");
}

TEST(RunReport, TextHasTheOutcomeTracebackUnraisablesAndOutput) {
  const std::string text = text_report(failed_result());
  for (const char* piece : {"expected  pass\n", "outcome   exception:ValueError\n", "about     a callback raises\n",
                            "--- uncaught exception ---\nTraceback...\nValueError: bad\n",
                            "--- unraisable 1: RuntimeError ---\nException ignored in: <Holder>\nfrom __del__\n",
                            "host functions skipped after finalization: 2\n",
                            "--- stdout ---\nprinted <text> & more\n", "--- stderr ---\nTraceback...\n"})
    EXPECT_NE(text.find(piece), std::string::npos) << "missing: " << piece << "\nin:\n" << text;
}

TEST(RunReport, JsonFields) {
  const auto document = nlohmann::json::parse(json_report(failed_result()));
  EXPECT_EQ(document["schema"], kRunReportSchema);
  EXPECT_EQ(document["status"], "failed");
  EXPECT_EQ(document["expected"], "pass");
  EXPECT_EQ(document["outcome"], "exception:ValueError");
  EXPECT_EQ(document["matched"], false);
  EXPECT_EQ(document["exit"]["status"], 1);
  EXPECT_TRUE(document["exit"]["signal"].is_null());
  EXPECT_EQ(document["exception"]["type"], "ValueError");
  EXPECT_EQ(document["unraisables"][0]["type"], "RuntimeError");
  EXPECT_EQ(document["skipped_host_functions"], 2);
  EXPECT_TRUE(document["driver"].is_null());
  EXPECT_EQ(document["stdout"], "printed <text> & more\n");
}

TEST(JunitReport, EscapesTextAndReplacesWhatXmlCannotCarry) {
  EXPECT_EQ(xml_escaped("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(xml_escaped("tab\tnew\nbell\a"), "tab\tnew\nbell");
  EXPECT_EQ(xml_escaped("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(xml_escaped("bad\xff byte"), "bad\xef\xbf\xbd byte");
  EXPECT_EQ(xml_escaped("cut \xe2\x82"), "cut \xef\xbf\xbd\xef\xbf\xbd");
}

TEST(JunitReport, CountsAndElements) {
  ScenarioResult failed = failed_result();
  ScenarioResult skipped = failed_result();
  skipped.scenario = "scenarios/needs_cupy.py";
  skipped.outcome = {OutcomeKind::Skipped, "needs cupy"};
  ScenarioResult passed = failed_result();
  passed.scenario = "top.py";
  passed.header.expect = {OutcomeKind::Exception, "ValueError"};
  passed.matched = true;
  const std::string xml = junit_xml({failed, skipped, passed}, 4.5);
  for (const char* piece :
       {"<testsuite name=\"gilsan\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"4.500\">",
        "<testcase classname=\"scenarios.callbacks\" name=\"raise.py\" file=\"scenarios/callbacks/raise.py\"",
        "<failure message=\"FAIL  scenarios/callbacks/raise.py  expected pass, got exception:ValueError (1.50 s)\">",
        "<skipped message=\"needs cupy\"/>", "<testcase classname=\"scenarios\" name=\"top.py\"",
        "<system-out>printed &lt;text&gt; &amp; more\n</system-out>"})
    EXPECT_NE(xml.find(piece), std::string::npos) << "missing: " << piece << "\nin:\n" << xml;
}

}  // namespace
}  // namespace gilsan
