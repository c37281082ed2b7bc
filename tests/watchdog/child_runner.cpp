#include "tests/watchdog/child_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "harness/board/board_writer.h"

namespace gilsan::watchdog::testing {

bool test_profile_blocks(std::string_view entry_point) {
  for (std::string_view name : {"cuMemAlloc", "cuMemFree", "cuMemAllocHost", "cuMemFreeHost", "cuMemHostAlloc",
                                "cuMemHostRegister", "cuMemHostUnregister", "cuModuleLoadData", "cuModuleUnload",
                                "cuCtxCreate", "cuCtxDestroy", "cuLaunchKernel", "cuLibraryLoadData"}) {
    if (entry_point == name) return true;
  }
  return false;
}

bool process_exists(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' && line[close + 2] != 'X';
}

ChildRun run_under_watchdog(const ChildRunOptions& options) {
  ChildRun run;
  RunGuard guard(board::BoardRegion::create());
  run.board_directory = guard.board().directory();

  int python_pipe[2] = {-1, -1};
  if (options.python_stack_pipe && ::pipe2(python_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
  std::vector<std::string> environment = options.extra_environment;
  environment.push_back(guard.board().env_entry());
  if (options.python_stack_pipe) environment.push_back("GILSAN_TEST_PYTHON_FD=" + std::to_string(python_pipe[1]));

  run.spawned_ns = board::monotonic_ns();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    if (python_pipe[1] >= 0) ::fcntl(python_pipe[1], F_SETFD, 0);  // inherited by the program
    for (const std::string& entry : environment) ::putenv(const_cast<char*>(entry.c_str()));
    std::vector<char*> argv;
    for (const std::string& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists whichever process runs first
  run.pid = pid;
  guard.set_child(pid, pid);
  if (python_pipe[1] >= 0) ::close(python_pipe[1]);

  WatchdogOptions watchdog_options = options.watchdog;
  watchdog_options.snapshot.python_stack_fd = python_pipe[0];
  Watchdog watchdog(pid, guard.board().board(), watchdog_options);
  auto give_up = std::chrono::steady_clock::now() + options.give_up;
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      run.exit_status = status;
      guard.child_reaped();
      break;
    }
    if (auto detection = watchdog.tick()) {
      run.detection = std::move(*detection);
      break;
    }
    if (std::chrono::steady_clock::now() >= give_up) {
      run.gave_up = true;
      break;
    }
    std::this_thread::sleep_for(options.tick);
  }
  if (run.detection) {
    run.report = make_report(*run.detection, &test_profile_blocks);
    // A crashing child dies by itself once acknowledged; let it, so its status is the crash's.
    if (run.detection->kind == DetectionKind::Crash) {
      for (int i = 0; i < 500 && !run.exit_status; ++i) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
          run.exit_status = status;
          guard.child_reaped();
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }
    }
  }
  run.tree_before_cleanup = find_process_tree(pid, pid);
  run.cleanup = guard.finish();
  if (!run.exit_status && run.cleanup.child_status) run.exit_status = run.cleanup.child_status;
  if (python_pipe[0] >= 0) ::close(python_pipe[0]);
  return run;
}

}  // namespace gilsan::watchdog::testing
