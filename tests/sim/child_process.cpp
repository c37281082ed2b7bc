#include "tests/sim/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "tests/sim/test_support.h"

extern char** environ;

namespace gilsan::test {

std::vector<std::string> child_arguments(const std::vector<std::string>& scenario) {
  std::vector<std::string> arguments = {"--driver", driver_name()};
  arguments.insert(arguments.end(), scenario.begin(), scenario.end());
  return arguments;
}

ChildProcess::ChildProcess(const std::vector<std::string>& arguments,
                           const std::map<std::string, std::string>& environment) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed: " + std::string(strerror(errno)));

  std::vector<std::string> argument_text = {GILSAN_SIM_TEST_CHILD};
  argument_text.insert(argument_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& text : argument_text) argv.push_back(text.data());
  argv.push_back(nullptr);

  std::vector<std::string> environment_text;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text = *entry;
    if (!environment.contains(text.substr(0, text.find('=')))) environment_text.push_back(text);
  }
  for (const auto& [name, value] : environment) environment_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& text : environment_text) envp.push_back(text.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  output_fd_ = pipe_fds[0];
  if (rc != 0) {
    close(output_fd_);
    throw std::runtime_error(std::string("posix_spawn ") + argv[0] + " failed: " + strerror(rc));
  }
}

ChildProcess::~ChildProcess() {
  kill();
  if (output_fd_ >= 0) close(output_fd_);
}

bool ChildProcess::read_some(std::chrono::milliseconds timeout) {
  pollfd poll_fd{output_fd_, POLLIN, 0};
  int ready = poll(&poll_fd, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) return true;  // nothing yet; not the end
  char buffer[4096];
  ssize_t n = read(output_fd_, buffer, sizeof buffer);
  if (n <= 0) return false;
  output_.append(buffer, static_cast<std::size_t>(n));
  return true;
}

bool ChildProcess::wait_for_line(const std::string& prefix, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (output_.starts_with(prefix) || output_.find("\n" + prefix) != std::string::npos) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (!read_some(std::min(left, std::chrono::milliseconds(50)))) return false;
  }
}

bool ChildProcess::wait_for_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_some(std::chrono::milliseconds(50))) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill();
      return false;
    }
  }
  reap(true);
  return true;
}

void ChildProcess::kill() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
}

void ChildProcess::reap(bool block) {
  if (pid_ <= 0 || exited_) return;
  int status = 0;
  pid_t done = waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done != pid_) return;
  exited_ = true;
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
}

std::string ChildProcess::line_value(const std::string& prefix) const {
  std::size_t at = 0;
  if (!output_.starts_with(prefix)) {
    at = output_.find("\n" + prefix);
    if (at == std::string::npos) return "";
    at += 1;
  }
  std::size_t begin = at + prefix.size();
  std::size_t end = output_.find('\n', begin);
  return output_.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace gilsan::test
