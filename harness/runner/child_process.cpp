#include "harness/runner/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

#include <cerrno>

#include "harness/runner/process_group.h"
#include "harness/runner/run_marker.h"

namespace gilsan {
namespace {

[[noreturn]] void fail(int error, const std::string& what) { throw std::system_error(error, std::generic_category(), what); }

// Pipe ends are moved above the standard descriptors so that placing them at 1, 2 and 3 in the
// child can never overwrite another pipe end, whatever the parent had open.
constexpr int kLowestPipeFd = 10;

UniqueFd moved_high(int fd) {
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kLowestPipeFd);
  const int error = errno;
  ::close(fd);
  if (high < 0) fail(error, "fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(high);
}

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Pipe make_pipe() {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) fail(errno, "pipe2");
  Pipe pipe;
  pipe.read_end = moved_high(ends[0]);
  pipe.write_end = moved_high(ends[1]);
  const int flags = ::fcntl(pipe.read_end.get(), F_GETFL);
  if (flags < 0 || ::fcntl(pipe.read_end.get(), F_SETFL, flags | O_NONBLOCK) != 0) fail(errno, "fcntl(O_NONBLOCK)");
  return pipe;
}

// posix_spawn's C structures, released on every path.
class SpawnSetup {
 public:
  SpawnSetup() {
    if (int error = posix_spawn_file_actions_init(&actions_); error != 0) fail(error, "posix_spawn_file_actions_init");
    if (int error = posix_spawnattr_init(&attributes_); error != 0) {
      posix_spawn_file_actions_destroy(&actions_);
      fail(error, "posix_spawnattr_init");
    }
  }
  ~SpawnSetup() {
    posix_spawnattr_destroy(&attributes_);
    posix_spawn_file_actions_destroy(&actions_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  void check(int error, const char* what) {
    if (error != 0) fail(error, what);
  }
  posix_spawn_file_actions_t* actions() { return &actions_; }
  posix_spawnattr_t* attributes() { return &attributes_; }

 private:
  posix_spawn_file_actions_t actions_;
  posix_spawnattr_t attributes_;
};

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (const std::string& text : strings) result.push_back(const_cast<char*>(text.c_str()));
  result.push_back(nullptr);
  return result;
}

}  // namespace

SpawnedChild spawn_in_own_process_group(const ChildCommand& command) {
  // Before the child exists: a grandchild orphaned even a moment after the spawn must come to us.
  become_child_subreaper();
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe report = make_pipe();

  SpawnSetup setup;
  setup.check(posix_spawn_file_actions_addopen(setup.actions(), 0, "/dev/null", O_RDONLY, 0), "addopen(/dev/null)");
  setup.check(posix_spawn_file_actions_adddup2(setup.actions(), out.write_end.get(), 1), "adddup2(stdout)");
  setup.check(posix_spawn_file_actions_adddup2(setup.actions(), err.write_end.get(), 2), "adddup2(stderr)");
  setup.check(posix_spawn_file_actions_adddup2(setup.actions(), report.write_end.get(), command.report_fd_in_child),
              "adddup2(report)");
  for (const auto& [here, in_child] : command.inherited_fds)
    setup.check(posix_spawn_file_actions_adddup2(setup.actions(), here, in_child), "adddup2(inherited)");

  // A session of its own (and so a process group whose id is the child's pid): what the child leaves
  // behind is told apart from what other runs of the same gilsan leave (suites run scenarios side by
  // side), and a Ctrl-C at the terminal reaches only gilsan, which stops the run itself. Signal
  // dispositions the parent changed (an ignored SIGPIPE, our SIGINT handler) must not leak into it.
  sigset_t all_signals;
  sigset_t no_signals;
  sigfillset(&all_signals);
  sigemptyset(&no_signals);
  setup.check(posix_spawnattr_setsigdefault(setup.attributes(), &all_signals), "setsigdefault");
  setup.check(posix_spawnattr_setsigmask(setup.attributes(), &no_signals), "setsigmask");
  setup.check(posix_spawnattr_setflags(setup.attributes(), POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF |
                                                                POSIX_SPAWN_SETSIGMASK),
              "setflags");

  std::vector<char*> argv = pointers(command.arguments);
  const std::string marker = new_run_marker();
  std::vector<std::string> environment = command.environment;
  environment.push_back(std::string(kRunMarkerVariable) + "=" + marker);
  std::vector<char*> envp = pointers(environment);
  pid_t pid = -1;
  if (int error = posix_spawn(&pid, command.executable.c_str(), setup.actions(), setup.attributes(), argv.data(),
                              envp.data());
      error != 0)
    fail(error, "posix_spawn(" + command.executable + ")");

  SpawnedChild child;
  child.pid = pid;
  child.stdout_pipe = std::move(out.read_end);
  child.stderr_pipe = std::move(err.read_end);
  child.report_pipe = std::move(report.read_end);
  child.run_marker = marker;
  return child;  // the write ends close here, so EOF on a pipe means every writer is gone
}

}  // namespace gilsan
