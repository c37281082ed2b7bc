// ChildSupervisor with /bin/sh children: the process handling, without Python.
#include "harness/runner/child_supervisor.h"
#include "harness/runner/resident_memory.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <fstream>
#include <sstream>

extern char** environ;

namespace gilsan {
namespace {

using std::chrono::milliseconds;

SpawnedChild spawn_shell(const std::string& script) {
  ChildCommand command;
  command.executable = "/bin/sh";
  command.arguments = {"sh", "-c", script};
  for (char** entry = environ; *entry != nullptr; ++entry) command.environment.emplace_back(*entry);
  return spawn_in_own_process_group(command);
}

SupervisedRun supervise(const std::string& script, SupervisionSettings settings = {}) {
  ChildSupervisor supervisor(spawn_shell(script), settings);
  return supervisor.run();
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

std::vector<pid_t> pids_in(const std::string& file) {
  std::vector<pid_t> pids;
  std::ifstream stream(file);
  for (pid_t pid; stream >> pid;) pids.push_back(pid);
  return pids;
}

std::string temporary_file(const std::string& name) {
  return ::testing::TempDir() + "gilsan-supervisor-" + std::to_string(::getpid()) + "-" + name;
}

TEST(ChildSupervisor, CapturesExitStatusOutputAndReport) {
  const SupervisedRun run = supervise(
      "echo out; echo err >&2; echo '{\"event\":\"started\",\"python\":\"sh\"}' >&3; exit 5");
  ASSERT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(WEXITSTATUS(run.wait_status), 5);
  EXPECT_EQ(run.stdout_text, "out\n");
  EXPECT_EQ(run.stderr_text, "err\n");
  EXPECT_EQ(run.report.python_version, "sh");
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.leftover_processes, 0);
  EXPECT_FALSE(run.group_survived);
}

TEST(ChildSupervisor, DrainsBothPipesPastTheirCapacity) {
  // 4 MiB on each pipe, written alternately: a parent that read one pipe at a time would deadlock.
  const SupervisedRun run = supervise(
      "i=0; while [ $i -lt 64 ]; do head -c 65536 /dev/zero | tr '\\0' o; head -c 65536 /dev/zero | tr '\\0' e >&2;"
      " i=$((i+1)); done");
  EXPECT_EQ(run.stdout_text.size(), 64u * 65536u);
  EXPECT_EQ(run.stderr_text.size(), 64u * 65536u);
  EXPECT_EQ(run.stdout_text.find_first_not_of('o'), std::string::npos);
}

TEST(ChildSupervisor, KeepsReadingPastTheOutputLimit) {
  SupervisionSettings settings;
  settings.output_limit_bytes = 1000;
  const SupervisedRun run = supervise("head -c 300000 /dev/zero | tr '\\0' x", settings);
  EXPECT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(run.stdout_text.size(), 1000u);
  EXPECT_EQ(run.stdout_dropped_bytes, 299000u);
}

TEST(ChildSupervisor, TimeoutSendsSigtermToTheGroup) {
  SupervisionSettings settings;
  settings.timeout = milliseconds(200);
  const SupervisedRun run = supervise("exec sleep 60", settings);
  EXPECT_TRUE(run.timed_out);
  ASSERT_TRUE(WIFSIGNALED(run.wait_status));
  EXPECT_EQ(WTERMSIG(run.wait_status), SIGTERM);
  EXPECT_FALSE(run.needed_sigkill);
  EXPECT_LT(run.elapsed.count(), 30.0);  // a generous bound that only catches waiting for the sleep
}

// Stops the run once `file` exists: the child writes it when it is ready to be stopped, so the test
// does not depend on how fast a loaded machine starts the shell.
class StopWhenFileExists : public SupervisionHook {
 public:
  explicit StopWhenFileExists(std::string file) : file_(std::move(file)) {}
  std::optional<Verdict> on_tick(pid_t) override {
    if (!std::ifstream(file_)) return std::nullopt;
    return Verdict{{OutcomeKind::Deadlock, "unknown"}, "the child is ready"};
  }

 private:
  std::string file_;
};

TEST(ChildSupervisor, SigkillAfterTheGraceWhenSigtermIsIgnoredAndNothingSurvives) {
  const std::string pid_file = temporary_file("ignoring.pids");
  std::remove(pid_file.c_str());
  SupervisionSettings settings;
  settings.termination_grace = milliseconds(300);
  StopWhenFileExists stop(pid_file);
  // The shell and a background grandchild both ignore SIGTERM and keep the pipes open.
  ChildSupervisor supervisor(
      spawn_shell("trap '' TERM; sleep 60 & echo $$ $! > " + pid_file + ".partial; mv " + pid_file + ".partial " +
                  pid_file + "; wait"),
      settings);
  supervisor.add_hook(stop);
  const SupervisedRun run = supervisor.run();
  ASSERT_TRUE(run.verdict.has_value());
  EXPECT_TRUE(run.needed_sigkill);
  ASSERT_TRUE(WIFSIGNALED(run.wait_status));
  EXPECT_EQ(WTERMSIG(run.wait_status), SIGKILL);
  EXPECT_FALSE(run.group_survived);
  const std::vector<pid_t> pids = pids_in(pid_file);
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_FALSE(process_exists(pid)) << "pid " << pid << " is still there";
  std::remove(pid_file.c_str());
}

TEST(ChildSupervisor, LeftoverGrandchildIsKilledWhenTheChildExits) {
  const std::string pid_file = temporary_file("leftover.pids");
  // The child exits at once; its grandchild would hold stdout open for a minute.
  const SupervisedRun run = supervise("sleep 60 & echo $! > " + pid_file + "; exit 0");
  EXPECT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.leftover_processes, 1);
  EXPECT_FALSE(run.group_survived);
  EXPECT_LT(run.elapsed.count(), 30.0);
  const std::vector<pid_t> pids = pids_in(pid_file);
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_FALSE(process_exists(pids[0]));
  std::remove(pid_file.c_str());
}

// A hook that decides on its third tick, like a hang detector that has seen enough.
class CountingHook : public SupervisionHook {
 public:
  void on_start(pid_t child) override { started_with = child; }
  std::optional<Verdict> on_tick(pid_t child) override {
    EXPECT_EQ(child, started_with);
    if (++ticks < 3) return std::nullopt;
    return Verdict{{OutcomeKind::Deadlock, "unknown"}, "three ticks without progress"};
  }
  pid_t started_with = -1;
  int ticks = 0;
};

TEST(ChildSupervisor, MaxResidentBytesKillsTheTreeWhenADescendantGrows) {
  // The grower is a grandchild: the limit is on the whole tree, not the direct child.
  SupervisionSettings settings;
  settings.max_resident_bytes = std::size_t{128} << 20;
  const auto started = std::chrono::steady_clock::now();
  const SupervisedRun run = supervise(
      "python3 -c 'import time; kept = [b\"x\" * (32 << 20) for _ in range(16)]; time.sleep(30)'; sleep 30",
      settings);
  EXPECT_TRUE(run.memory_limit_exceeded);
  EXPECT_FALSE(run.timed_out);
  EXPECT_GT(run.peak_resident_bytes, *settings.max_resident_bytes);
  ASSERT_TRUE(WIFSIGNALED(run.wait_status));
  EXPECT_EQ(WTERMSIG(run.wait_status), SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST(ChildSupervisor, WithoutMaxResidentBytesNothingIsMeasured) {
  const SupervisedRun run = supervise("exit 0");
  EXPECT_FALSE(run.memory_limit_exceeded);
  EXPECT_EQ(run.peak_resident_bytes, 0u);
}

TEST(ByteSize, TakesBytesAndBinaryUnits) {
  EXPECT_EQ(parse_byte_size("1048576"), std::size_t{1} << 20);
  EXPECT_EQ(parse_byte_size("300k"), std::size_t{300} << 10);
  EXPECT_EQ(parse_byte_size("512M"), std::size_t{512} << 20);
  EXPECT_EQ(parse_byte_size("2G"), std::size_t{2} << 30);
  for (const char* bad : {"", "0", "0M", "-1", "12MB", "1.5G", "M", "99999999999999999999G", " 5M"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
  EXPECT_EQ(byte_size_text(std::size_t{264} << 20), "264 MiB");
  EXPECT_EQ(byte_size_text(4096), "4096 bytes");
}

TEST(ChildSupervisor, HookVerdictEndsTheRun) {
  CountingHook hook;
  ChildSupervisor supervisor(spawn_shell("exec sleep 60"), SupervisionSettings{});
  supervisor.add_hook(hook);
  const SupervisedRun run = supervisor.run();
  EXPECT_GT(hook.started_with, 0);
  EXPECT_EQ(hook.ticks, 3);
  ASSERT_TRUE(run.verdict.has_value());
  EXPECT_EQ(run.verdict->outcome, (Outcome{OutcomeKind::Deadlock, "unknown"}));
  EXPECT_EQ(run.verdict->explanation, "three ticks without progress");
  EXPECT_FALSE(run.timed_out);
  EXPECT_TRUE(WIFSIGNALED(run.wait_status));
}

TEST(ChildSupervisor, ChildRunsInItsOwnProcessGroup) {
  const SupervisedRun run = supervise("cut -d' ' -f5 /proc/$$/stat; echo $$");
  std::istringstream lines(run.stdout_text);
  pid_t group = 0;
  pid_t self = 0;
  lines >> group >> self;
  EXPECT_GT(self, 0);
  EXPECT_EQ(group, self);
  EXPECT_NE(group, ::getpgrp());
}

TEST(ChildSupervisor, SpawnFailureIsAnError) {
  ChildCommand command;
  command.executable = "/nonexistent/gilsan-test-binary";
  command.arguments = {"x"};
  EXPECT_THROW(spawn_in_own_process_group(command), std::system_error);
}

}  // namespace
}  // namespace gilsan
