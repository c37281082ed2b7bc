// The report forms: JSON (parsed back with nlohmann, checked against the documented schema), the
// JSON file sink, and the text form.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "checkers/core/report_json.h"
#include "checkers/core/report_text.h"
#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

using nlohmann::json;

// A run with one of each common finding: an inversion, a GIL-held sync, a refused call.
RunSummary sample_run(Harness& h) {
  h.sanitizer.name_thread(kMain, "main");
  h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "on_done at s.py:4"),
        {"on_done at s.py:4"});
  h.call(kMain, "cuStreamSynchronize", kContext, kStream1, true, {.streams = {kStream1}},
         kCudaSuccess, {"main at s.py:9"});
  h.begin(kCallback, Harness::host_function(HostFunctionKind::native, kStream1, "bad"));
  h.call(kCallback, "cuMemAlloc", kContext, std::nullopt, false, {}, kCudaErrorNotPermitted,
         {"bad at b.c:2"});
  h.sanitizer.host_function_end(kCallback);
  return h.sanitizer.finish();
}

const json* report_of(const json& document, std::string_view checker) {
  for (const json& report : document["reports"]) {
    if (report["checker"] == checker) return &report;
  }
  return nullptr;
}

void expect_keys(const json& object, std::initializer_list<const char*> keys) {
  ASSERT_TRUE(object.is_object()) << object.dump();
  EXPECT_EQ(object.size(), keys.size()) << object.dump();
  for (const char* key : keys)
    EXPECT_TRUE(object.contains(key)) << key << " missing in " << object.dump();
}

TEST(ReportJson, DocumentHasTheDocumentedFields) {
  Harness h(Options(), Suppressions::parse("host-function-lifetime:*unused*", "s.supp"));
  const RunSummary summary = sample_run(h);
  const json document = json::parse(render_json(summary.reports, &summary));
  expect_keys(document, {"schema", "complete", "reports", "suppressed", "unused_suppressions",
                         "ignored_events", "exit_code"});
  EXPECT_EQ(document["schema"], "gilsan-sanitizer-report/1");
  EXPECT_EQ(document["complete"], true);
  EXPECT_EQ(document["exit_code"], 66);
  EXPECT_EQ(document["suppressed"], 0);
  EXPECT_EQ(document["ignored_events"], 0);
  ASSERT_EQ(document["unused_suppressions"].size(), 1u);
  EXPECT_EQ(document["unused_suppressions"][0], (json{{"file", "s.supp"},
                                                      {"line", 1},
                                                      {"checker", "host-function-lifetime"},
                                                      {"pattern", "*unused*"}}));
  ASSERT_EQ(document["reports"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    expect_keys(document["reports"][i], {"id", "checker", "class", "summary", "cycle", "edges",
                                         "thread", "call", "host_function", "message", "stack"});
    EXPECT_EQ(document["reports"][i]["id"], i + 1);
  }
}

TEST(ReportJson, CycleReportCarriesNodesEdgesAndStacks) {
  Harness h;
  const RunSummary summary = sample_run(h);
  const json document = json::parse(render_json(summary.reports, &summary));
  const json* cycle = report_of(document, "lock-order-cycle");
  ASSERT_TRUE(cycle);
  EXPECT_EQ((*cycle)["class"], "gil-driver-inversion");
  ASSERT_EQ((*cycle)["cycle"].size(), 2u);
  const json gil = (*cycle)["cycle"][0];
  expect_keys(gil, {"kind", "label", "context", "stream", "lock", "name"});
  EXPECT_EQ(gil["kind"], "gil");
  EXPECT_TRUE(gil["context"].is_null());
  const json completion = (*cycle)["cycle"][1];
  EXPECT_EQ(completion["kind"], "stream-completion");
  EXPECT_EQ(completion["stream"], "0x5001");
  EXPECT_EQ(completion["label"], "completion of stream 0x5001");
  ASSERT_EQ((*cycle)["edges"].size(), 2u);
  const json first = (*cycle)["edges"][0];
  expect_keys(first, {"from", "to", "sentence", "wait", "thread", "call", "stack"});
  EXPECT_EQ(first["from"], 0);
  EXPECT_EQ(first["to"], 1);
  EXPECT_EQ(first["wait"], "driver-wait");
  EXPECT_EQ(first["thread"]["id"], kMain);
  EXPECT_EQ(first["thread"]["name"], "main");
  EXPECT_TRUE(first["thread"]["host_function"].is_null());
  EXPECT_EQ(first["call"]["entry_point"], "cuStreamSynchronize");
  EXPECT_EQ(first["stack"], json::array({"main at s.py:9"}));
  const json second = (*cycle)["edges"][1];
  EXPECT_EQ(second["wait"], "gil");
  EXPECT_TRUE(second["call"].is_null());
  const json host_function = second["thread"]["host_function"];
  expect_keys(host_function, {"id", "kind", "implementation", "description", "context", "stream"});
  EXPECT_EQ(host_function["kind"], "python");
  EXPECT_EQ(host_function["context"], "0xc1");
  EXPECT_EQ(second["stack"], json::array({"on_done at s.py:4"}));
}

TEST(ReportJson, CallReportSaysWhetherTheDriverRefused) {
  Harness h;
  const RunSummary summary = sample_run(h);
  const json document = json::parse(render_json(summary.reports, &summary));
  const json* refused = report_of(document, "cuda-call-in-host-function");
  ASSERT_TRUE(refused);
  expect_keys((*refused)["call"], {"entry_point", "context", "stream", "event", "returned",
                                   "result", "result_name", "not_permitted"});
  EXPECT_EQ((*refused)["call"]["result"], 800);
  EXPECT_EQ((*refused)["call"]["result_name"], "CUDA_ERROR_NOT_PERMITTED");
  EXPECT_EQ((*refused)["call"]["not_permitted"], true);
  EXPECT_EQ((*refused)["call"]["returned"], true);
  EXPECT_TRUE((*refused)["class"].is_null());
  EXPECT_EQ((*refused)["stack"], json::array({"bad at b.c:2"}));
  EXPECT_EQ((*refused)["host_function"]["description"], "bad");
  const json* blocking = report_of(document, "gil-held-blocking-call");
  ASSERT_TRUE(blocking);
  EXPECT_EQ((*blocking)["call"]["returned"], false);  // reported at entry, before it returned
  EXPECT_TRUE((*blocking)["call"]["not_permitted"].is_null());
}

TEST(ReportJson, UnfinishedDocumentSaysSo) {
  const json document = json::parse(render_json({}, nullptr));
  EXPECT_EQ(document["complete"], false);
  EXPECT_TRUE(document["exit_code"].is_null());
  EXPECT_TRUE(document["reports"].empty());
}

TEST(ReportJson, InvalidUtf8InAFrameDoesNotBreakTheDocument) {
  Report report;
  report.summary = "x";
  report.stack = {std::string("frame \xff\xfe bytes")};
  const json document = json::parse(render_json({report}, nullptr));
  EXPECT_EQ(document["reports"].size(), 1u);
}

TEST(JsonFileSink, FileIsRewrittenAfterEachReportAndCompletedAtFinish) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gilsan-report-" + std::to_string(::getpid()) + ".json");
  auto file_sink = std::make_shared<JsonFileSink>(path.string());
  Sanitizer sanitizer(SanitizerConfig{Options(), measured_driver(), {}, {file_sink}, {}});
  sanitizer.driver_call_enter({.thread = kMain,
                               .entry_point = "cuStreamSynchronize",
                               .context = kContext,
                               .stream = kStream1,
                               .holds_gil = true,
                               .waits = {.streams = {kStream1}}});
  auto read = [&] {
    std::ifstream file(path);
    return json::parse(file);
  };
  json during = read();  // as a run killed now would leave it
  EXPECT_EQ(during["complete"], false);
  EXPECT_EQ(during["reports"].size(), 1u);
  const RunSummary summary = sanitizer.finish();
  EXPECT_TRUE(summary.sink_errors.empty());
  json after = read();
  EXPECT_EQ(after["complete"], true);
  EXPECT_EQ(after["reports"].size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  // Reports name threads, stacks and paths: the file is its owner's alone, whatever the umask.
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::filesystem::remove(path);
}

TEST(JsonFileSink, UnwritablePathIsASinkErrorNotACrash) {
  auto text = std::make_shared<std::ostringstream>();
  Sanitizer sanitizer(SanitizerConfig{Options(),
                                      measured_driver(),
                                      {},
                                      {std::make_shared<JsonFileSink>("/nonexistent/dir/r.json"),
                                       std::make_shared<TextSink>(*text)},
                                      {}});
  sanitizer.driver_call_enter({.thread = kMain,
                               .entry_point = "cuCtxSynchronize",
                               .context = kContext,
                               .holds_gil = true,
                               .waits = {.whole_context = true}});
  const RunSummary summary = sanitizer.finish();
  ASSERT_FALSE(summary.sink_errors.empty());
  EXPECT_NE(summary.sink_errors[0].find("report_path /nonexistent/dir/r.json: cannot create"),
            std::string::npos);
  EXPECT_NE(text->str().find("gilsan: report_path /nonexistent/dir/r.json"), std::string::npos);
}

TEST(ReportText, OneSentencePerEdgeThenEachEdgesStack) {
  Harness h;
  const RunSummary summary = sample_run(h);
  const std::string text = render_text(summary.reports[0]);
  EXPECT_EQ(text,
            "gilsan: lock-order-cycle (gil-driver-inversion): potential deadlock: the GIL -> "
            "completion of stream 0x5001 -> the GIL\n"
            "  1. thread 100 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x5001) "
            "for completion of stream 0x5001.\n"
            "  2. completion of stream 0x5001 waits for host function on_done at s.py:4 (python, "
            "gilsan) on stream 0x5001, run by thread 300, which waits for the GIL.\n"
            "  stack of 1 (thread 100):\n"
            "    #0 main at s.py:9\n"
            "  stack of 2 (thread 300):\n"
            "    #0 on_done at s.py:4\n");
}

TEST(ReportText, OtherCheckersShowMessageThreadAndStack) {
  Harness h;
  const RunSummary summary = sample_run(h);
  const std::string text = render_text(summary.reports[2]);
  EXPECT_EQ(summary.reports[2].checker, Checker::cuda_call_in_host_function);
  EXPECT_NE(text.find("gilsan: cuda-call-in-host-function: host function bad (native, gilsan) on "
                      "stream 0x5001 called cuMemAlloc(context 0xc1), which returned "
                      "CUDA_ERROR_NOT_PERMITTED (800)\n"),
            std::string::npos);
  EXPECT_NE(text.find("  on thread 300 running host function bad"), std::string::npos);
  EXPECT_NE(text.find("  stack:\n    #0 bad at b.c:2\n"), std::string::npos);
}

TEST(ReportText, SummaryListsUnusedSuppressions) {
  RunSummary summary;
  summary.suppressed = 2;
  summary.unused_suppressions = {{"s.supp", 3, "lock-order-cycle", "*x*"}};
  EXPECT_EQ(render_text(summary),
            "gilsan: 0 reports, 2 suppressed\n"
            "gilsan: unused suppression s.supp:3: lock-order-cycle:*x*\n");
}

}  // namespace
}  // namespace gilsan::checkers::testing
