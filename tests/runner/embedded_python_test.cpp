// The scenario child's interpreter: the watchdog's Python-stack signal before and after finalization.
#include "harness/child/embedded_python.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/runner/read_to_end.h"

namespace gilsan {
namespace {

// In a child process (a death test): the interpreter is the process's own, and the signal is real.
void request_stacks_around_finalization() {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) std::_Exit(10);
  const int stack_signal = SIGRTMIN + 7;
  {
    InterpreterSettings settings;
    settings.executable = GILSAN_PYTHON_EXECUTABLE;
    settings.scenario_path = "embedded_python_test";
    settings.scenario_folder = ".";
    EmbeddedPython python(settings);
    python.dump_python_stacks_to(pipe_fds[1], stack_signal);
    ::raise(stack_signal);  // while the interpreter lives: faulthandler writes the stacks
    if (python.finalize() != 0) std::_Exit(11);
  }
  ::raise(stack_signal);  // after: must change nothing
  ::close(pipe_fds[1]);
  const std::string stacks = read_to_end(pipe_fds[0]);
  std::_Exit(stacks.find("Current thread") != std::string::npos || stacks.find("Thread 0x") != std::string::npos ? 0
                                                                                                                 : 12);
}

TEST(EmbeddedPython, TheWatchdogsStackSignalWritesStacksThenDoesNothingOnceTheInterpreterIsGone) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(request_stacks_around_finalization(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gilsan
