// The three report forms from a hand-built snapshot.
#include "harness/watchdog/report.h"

#include <signal.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/watchdog/child_runner.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan::watchdog::testing {
namespace {

HangReport inversion_report() {
  Detection detection;
  detection.kind = DetectionKind::Hang;
  detection.snapshot = gil_inversion_snapshot();
  detection.snapshot.threads[0].native_stack = {frame("__futex_abstimed_wait_common", "/lib/libc.so.6"),
                                                frame("cuStreamSynchronize", "/usr/lib/libgilsan_simcuda.so"),
                                                frame("mine::Engine<int, std::vector<int>>::wait()", "/home/u/libmine.so"),
                                                frame("_PyEval_EvalFrameDefault", "/usr/lib/libpython3.12.so.1.0")};
  detection.snapshot.threads[0].python_stack = std::vector<PythonFrame>{{"scenario.py", 20, "<module>"}};
  detection.snapshot.notes.push_back("Python stacks: test note");
  detection.detected_ns = 1'900'000'000;
  detection.reported_ns = 1'950'000'000;
  detection.quiet_ns = 500'000'000;
  detection.blocked_tids = {kMain, kCallback};
  return make_report(std::move(detection), &test_profile_blocks);
}

TEST(Report, TextLeadsWithTheClassAndTheCycle) {
  std::string text = render_text(inversion_report());
  EXPECT_EQ(text.rfind("gilsan: hang in process 100: gil-driver-inversion\n", 0), 0u) << text;
  EXPECT_NE(text.find("1. thread 100 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x10)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("the GIL is held by thread 100 (main)"), std::string::npos) << text;
  EXPECT_NE(text.find("scenario.py:20 in <module>"), std::string::npos) << text;
  EXPECT_NE(text.find("Python stacks: test note"), std::string::npos) << text;
  EXPECT_LT(text.find("cycle:"), text.find("threads:"));
}

// The short form (the default) shows per thread only the program's own native frames, templates elided;
// the full form every frame but gilsan's own.
TEST(Report, TheShortFormShowsTheProgramsOwnFramesTheFullFormAllButGilsans) {
  HangReport report = inversion_report();
  // The callback thread waits for the GIL before its host function's first Python frame.
  report.snapshot.threads[1].python_stack = std::vector<PythonFrame>{};
  const std::string short_text = render_text(report);
  EXPECT_NE(short_text.find("native stack, the program's own frames (1 of 4; --report full shows all):\n"),
            std::string::npos) << short_text;
  EXPECT_NE(short_text.find("mine::Engine<...>::wait()+0x0 (libmine.so"), std::string::npos) << short_text;
  EXPECT_EQ(short_text.find("__futex_abstimed_wait_common"), std::string::npos) << short_text;
  EXPECT_EQ(short_text.find("libgilsan_simcuda.so"), std::string::npos) << short_text;
  const std::string full_text = render_text(report, TextDetail::Full);
  EXPECT_NE(full_text.find("native stack (1 of gilsan's own frames left out):\n"), std::string::npos) << full_text;
  EXPECT_NE(full_text.find("__futex_abstimed_wait_common+0x0 (libc.so.6"), std::string::npos) << full_text;
  EXPECT_NE(full_text.find("_PyEval_EvalFrameDefault"), std::string::npos) << full_text;
  EXPECT_EQ(full_text.find("libgilsan_simcuda.so"), std::string::npos) << full_text;
  EXPECT_LT(short_text.size(), full_text.size());
  EXPECT_NE(short_text.find("    Python stack: none (no Python frame on this thread)\n"), std::string::npos) << short_text;
}

TEST(Report, JsonFollowsTheSchema) {
  auto json = nlohmann::json::parse(render_json(inversion_report()));
  EXPECT_EQ(json["schema"], "gilsan-hang-report/1");
  EXPECT_EQ(json["kind"], "hang");
  EXPECT_EQ(json["class"], "gil-driver-inversion");
  EXPECT_EQ(json["pid"], 100);
  EXPECT_EQ(json["timing"]["quiet_ms"], 500);
  EXPECT_EQ(json["timing"]["quiet_for_ms"], 1000);
  EXPECT_EQ(json["timing"]["snapshot_ms"], 50);
  ASSERT_EQ(json["cycle"].size(), 4u);
  EXPECT_EQ(json["cycle"][0]["relation"], "waits-for");
  EXPECT_EQ(json["crash"], nullptr);
  ASSERT_EQ(json["threads"].size(), 2u);
  const auto& main_thread = json["threads"][0];
  EXPECT_EQ(main_thread["tid"], 100);
  EXPECT_EQ(main_thread["gil"]["state"], "holds");
  EXPECT_EQ(main_thread["call"]["entry_point"], "cuStreamSynchronize");
  EXPECT_EQ(main_thread["call"]["stream"], "0x10");
  EXPECT_EQ(main_thread["python_stack"][0]["line"], 20);
  EXPECT_EQ(json["threads"][1]["host_function"]["id"], 3);
  EXPECT_EQ(json["progress"].size(), board::kProgressKinds);
  EXPECT_FALSE(json["graph"]["nodes"].empty());
}

TEST(Report, DotMarksTheCycleAndEscapesLabels) {
  HangReport report = inversion_report();
  report.class_name = "say \"cheese\"";
  std::string dot = render_dot(report);
  EXPECT_EQ(dot.rfind("digraph gilsan_wait_for {", 0), 0u);
  EXPECT_NE(dot.find("\"thread:100\" -> \"stream:0x10\" [label=\"waits for\", color=red"), std::string::npos) << dot;
  EXPECT_NE(dot.find("say \\\"cheese\\\""), std::string::npos) << dot;
}

TEST(Report, CrashNamesTheSignalTheThreadAndTheHostFunction) {
  Detection detection;
  detection.kind = DetectionKind::Crash;
  SnapshotBuilder builder;
  ThreadSnapshot& callback = builder.board_thread(kCallback, board::Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(7, kStream1, board::HostFunctionKind::Native, "bad cb"));
  callback.native_stack = {frame("crashing_callback")};
  builder.snapshot().crash = board::CrashRecord{SIGSEGV, kCallback, 0};
  detection.snapshot = builder.snapshot();
  HangReport report = make_report(std::move(detection), &test_profile_blocks);
  EXPECT_EQ(report.class_name, "crash");
  EXPECT_EQ(report.summary,
            "crash: SIGSEGV (address 0x0) in thread 101 (callback thread of context 0x30) while running host "
            "function #7 (native, gilsan, bad cb)");
  auto json = nlohmann::json::parse(render_json(report));
  EXPECT_EQ(json["crash"]["signal_name"], "SIGSEGV");
  EXPECT_EQ(json["crash"]["tid"], kCallback);
}

TEST(Report, SignalNames) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
}

}  // namespace
}  // namespace gilsan::watchdog::testing
