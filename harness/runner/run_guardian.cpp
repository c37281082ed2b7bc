#include "harness/runner/run_guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <vector>

#include "harness/runner/run_folders.h"
#include "harness/runner/run_marker.h"

namespace gilsan {
namespace {

constexpr int kPipeFd = 3;
constexpr std::chrono::seconds kKillFor{5};

void close_all_but_the_pipe(int read_end) {
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd) {
    if (null >= 0) ::dup2(null, fd);
  }
  if (read_end != kPipeFd) {
    ::dup2(read_end, kPipeFd);
    ::close(read_end);
  }
  // close_range(2) where the kernel has it; else each descriptor the process may have.
  if (::syscall(SYS_close_range, kPipeFd + 1, ~0U, 0) != 0) {
    for (int fd = kPipeFd + 1; fd < 65536; ++fd) ::close(fd);
  }
}

// The guardian's life: wait for gilsan to be gone, then take what its runs left.
[[noreturn]] void guard(pid_t owner, int read_end) {
  ::setsid();
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) ::signal(signal, SIG_IGN);
  close_all_but_the_pipe(read_end);
  // Any byte is gilsan saying it ended normally, its runs and folders cleaned up already: nothing to do.
  bool finished = false;
  char buffer[64];
  while (true) {
    const ssize_t got = ::read(kPipeFd, buffer, sizeof buffer);
    if (got > 0) finished = true;
    if (got == 0 || (got < 0 && errno != EINTR)) break;
  }
  if (finished) ::_exit(0);
  const auto give_up_at = std::chrono::steady_clock::now() + kKillFor;
  while (std::chrono::steady_clock::now() < give_up_at) {
    const std::vector<pid_t> left = processes_of_runs_by(owner);
    if (left.empty()) break;
    for (pid_t pid : left) {
      if (::getpgid(pid) == pid) ::kill(-pid, SIGKILL);  // the scenario child leads its group
      ::kill(pid, SIGKILL);
    }
    const timespec ten_ms{0, 10'000'000};
    ::nanosleep(&ten_ms, nullptr);
  }
  remove_run_folders_of(owner, temporary_folders());
  ::_exit(0);
}

}  // namespace

RunGuardian::RunGuardian() {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return;
  const pid_t owner = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ends[1]);
    guard(owner, ends[0]);
  }
  ::close(ends[0]);
  if (pid < 0) {
    ::close(ends[1]);
    return;
  }
  pid_ = pid;
  write_end_ = ends[1];
}

RunGuardian::~RunGuardian() {
  if (pid_ < 0) return;
  // Ended normally: spare the guardian its scan of /proc and the temporary folders.
  const char finished = 'F';
  const ssize_t written = ::write(write_end_, &finished, 1);  // if it fails, the guardian looks and finds nothing
  (void)written;
  ::close(write_end_);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace gilsan
