// run_cases on small shell scripts: lines are collected, deadlines kill whole process groups, and
// nothing of a case outlives it.
#include "harness/probe/case_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace gilsan::probe {
namespace {

SelfCommand shell() {
  SelfCommand self;
  self.executable = "/bin/sh";
  self.argv_prefix = {"sh", "-c"};
  self.environment = environment_with({}, {});
  return self;
}

CaseRequest script(const std::string& label, const std::string& text, int limit_ms = 10000) {
  return CaseRequest{label, {text}, std::chrono::milliseconds(limit_ms)};
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST(CaseProcess, CollectsReportedLinesAndOutput) {
  auto results = run_cases(shell(), {script("one", "echo 'call-returned 0 CUDA_SUCCESS 12' >&3; echo hello; exit 3")}, 1);
  ASSERT_EQ(results.size(), 1u);
  const CaseResult& r = results[0];
  EXPECT_EQ(r.label, "one");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.killed_at_deadline);
  ASSERT_NE(r.find("call-returned"), nullptr);
  auto code = result_code_at(*r.find("call-returned"), 0);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->code, 0);
  EXPECT_EQ(code->name, "CUDA_SUCCESS");
  EXPECT_EQ(r.find("call-returned")->value(2), "12");
  EXPECT_EQ(r.output, "hello\n");
}

TEST(CaseProcess, ADeadlineLineShortensTheLimitAndTheGroupIsKilled) {
  // The script starts a grandchild in its group that ignores SIGTERM, reports its pid, then sleeps.
  auto started = std::chrono::steady_clock::now();
  auto results = run_cases(shell(),
                           {script("hangs",
                                   "trap '' TERM; (trap '' TERM; sleep 60) & echo \"grandchild $!\" >&3; "
                                   "echo 'deadline 300' >&3; sleep 60",
                                   60000)},
                           1);
  auto took = std::chrono::steady_clock::now() - started;
  const CaseResult& r = results[0];
  EXPECT_TRUE(r.killed_at_deadline);
  EXPECT_LT(took, std::chrono::seconds(30));
  ASSERT_NE(r.find("grandchild"), nullptr);
  pid_t grandchild = std::atoi(r.find("grandchild")->value(0).c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(r.group_left_behind);
  // The grandchild was re-parented to init (or a subreaper); give it a moment to be reaped.
  for (int i = 0; i < 200 && alive(grandchild); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive(grandchild));
}

TEST(CaseProcess, RunsCasesInParallelAndKeepsRequestOrder) {
  // Each case leaves a mark, then waits for the marks of all six: only cases that run at the same
  // time can all finish; one after another, the first would wait out its limit.
  char folder[] = "/tmp/gilsan-probe-parallel-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  std::vector<CaseRequest> requests;
  for (int i = 0; i < 6; ++i) {
    std::string f = std::string(folder);
    requests.push_back(script("case " + std::to_string(i),
                              "touch " + f + "/" + std::to_string(i) + "; while [ $(ls " + f +
                                  " | wc -l) -lt 6 ]; do sleep 0.01; done; echo 'n " + std::to_string(i) + "' >&3",
                              60000));
  }
  std::vector<std::string> finished;
  auto results = run_cases(shell(), requests, 6, [&](const CaseResult& r) { finished.push_back(r.label); });
  std::filesystem::remove_all(folder);
  ASSERT_EQ(results.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_FALSE(results[i].killed_at_deadline) << i;
    ASSERT_NE(results[i].find("n"), nullptr);
    EXPECT_EQ(results[i].find("n")->value(0), std::to_string(i));
    EXPECT_EQ(results[i].label, "case " + std::to_string(i));
  }
  EXPECT_EQ(finished.size(), 6u);
}

TEST(CaseProcess, ACrashIsReportedAsASignal) {
  auto results = run_cases(shell(), {script("crash", "echo 'call-started' >&3; kill -SEGV $$")}, 1);
  EXPECT_EQ(results[0].signal, SIGSEGV);
  EXPECT_TRUE(results[0].has("call-started"));
  EXPECT_NE(results[0].how_it_ended().find("signal 11"), std::string::npos);
}

TEST(CaseProcess, EnvironmentOverridesReplaceAndRemove) {
  ::setenv("GILSAN_PROBE_TEST_KEEP", "kept", 1);
  ::setenv("GILSAN_PROBE_TEST_DROP", "dropped", 1);
  auto env = environment_with({{"GILSAN_PROBE_TEST_KEEP", "replaced"}}, {"GILSAN_PROBE_TEST_DROP"});
  EXPECT_NE(std::find(env.begin(), env.end(), "GILSAN_PROBE_TEST_KEEP=replaced"), env.end());
  EXPECT_EQ(std::find(env.begin(), env.end(), "GILSAN_PROBE_TEST_KEEP=kept"), env.end());
  for (const auto& entry : env) EXPECT_NE(entry.rfind("GILSAN_PROBE_TEST_DROP=", 0), 0u) << entry;
}

TEST(CaseProtocol, ParsesLinesAndFreeText) {
  auto line = parse_case_line("note runtime library  libcudart.so.13");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->key, "note");
  EXPECT_EQ(line->text(), "runtime library libcudart.so.13");
  EXPECT_FALSE(parse_case_line("   ").has_value());
  auto bad = parse_case_line("call-returned x CUDA_SUCCESS 1");
  EXPECT_FALSE(result_code_at(*bad, 0).has_value());
}

}  // namespace
}  // namespace gilsan::probe
