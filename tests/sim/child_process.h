// ChildProcess: runs the test helper (gilsan_sim_test_child) in its own process with posix_spawn, so a
// test can watch a call hang, or start a fresh driver with another configuration, without forking a
// process that has driver threads.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace gilsan::test {

class ChildProcess {
 public:
  // Starts the helper with `arguments` (after the program name) and `environment` added to ours.
  ChildProcess(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment = {});
  ~ChildProcess();  // kills the child if it is still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits until the child's standard output has a line starting with `prefix`; false on timeout or exit.
  bool wait_for_line(const std::string& prefix, std::chrono::milliseconds timeout);
  // Waits for the child to exit; false (and the child is killed) on timeout.
  bool wait_for_exit(std::chrono::milliseconds timeout);
  void kill();

  const std::string& output() const { return output_; }  // standard output and error, as read so far
  bool exited() const { return exited_; }
  int exit_code() const { return exit_code_; }          // -1 unless it exited normally
  int signal() const { return signal_; }                // 0 unless a signal ended it
  // The rest of the line that starts with `prefix`, or "" if there is none.
  std::string line_value(const std::string& prefix) const;

 private:
  bool read_some(std::chrono::milliseconds timeout);  // false at end of output
  void reap(bool block);
  pid_t pid_ = -1;
  int output_fd_ = -1;
  std::string output_;
  bool exited_ = false;
  int exit_code_ = -1;
  int signal_ = 0;
};

// The driver argument every child gets: "--driver sim" or "--driver real".
std::vector<std::string> child_arguments(const std::vector<std::string>& scenario);

}  // namespace gilsan::test
