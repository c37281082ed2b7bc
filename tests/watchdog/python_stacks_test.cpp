// collect_python_stacks against this process standing in for a child: a signal handler writes what
// faulthandler would, then (or not) the child's end-of-dump line (board::kPythonStacksEnd).
#include "harness/watchdog/python_stacks.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "harness/board/board_writer.h"

namespace gilsan::watchdog {
namespace {

constexpr char kDump[] =
    "Thread 0x00007f0000000001 (most recent call first):\n"
    "  File \"scenario.py\", line 12 in wait_here\n";

int g_write_fd = -1;
bool g_with_end = true;

constexpr char kLaterDump[] = "Thread 0x2 (most recent call first):\n";

// Only write(2) here: a signal handler.
void write_dump(int) {
  ssize_t written = ::write(g_write_fd, kDump, sizeof(kDump) - 1);
  if (g_with_end) {
    // The end line, then output of a later dump that must not be read as this one's.
    written = ::write(g_write_fd, board::kPythonStacksEnd.data(), board::kPythonStacksEnd.size());
    written = ::write(g_write_fd, kLaterDump, sizeof(kLaterDump) - 1);
  }
  (void)written;
}

class PythonStacks : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(fds_), 0);
    g_write_fd = fds_[1];
    struct sigaction action {};
    action.sa_handler = write_dump;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    ASSERT_EQ(::sigaction(kSignal, &action, &previous_), 0);
  }
  void TearDown() override {
    ::sigaction(kSignal, &previous_, nullptr);
    ::close(fds_[0]);
    ::close(fds_[1]);
    g_write_fd = -1;
    g_with_end = true;
  }
  PythonStackRequest request(std::chrono::milliseconds idle_gap) const {
    return PythonStackRequest{.pid = ::getpid(), .signal_number = kSignal, .read_fd = fds_[0],
                              .timeout = std::chrono::seconds(30), .idle_gap = idle_gap};
  }

  static inline const int kSignal = SIGRTMIN + 9;
  int fds_[2] = {-1, -1};
  struct sigaction previous_ {};
};

TEST_F(PythonStacks, TheEndLineEndsTheDumpWithoutWaitingForSilence) {
  // An idle gap no test would sit through: only the end line can end this read early.
  const auto started = std::chrono::steady_clock::now();
  const std::string text = collect_python_stacks(request(std::chrono::seconds(60)));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(text, kDump);  // the end line and what followed it are not part of the dump
  const auto stacks = parse_faulthandler_dump(text);
  ASSERT_EQ(stacks.size(), 1u);
  ASSERT_EQ(stacks[0].frames.size(), 1u);
  EXPECT_EQ(stacks[0].frames[0].function, "wait_here");
}

TEST_F(PythonStacks, WithoutAnEndLineSilenceEndsTheDump) {
  g_with_end = false;
  const std::string text = collect_python_stacks(request(std::chrono::milliseconds(30)));
  EXPECT_EQ(text, kDump);
}

}  // namespace
}  // namespace gilsan::watchdog
