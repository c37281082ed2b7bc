#include "harness/child/program_child.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness/scenario/child_report.h"
#include "harness/text/errno_text.h"

namespace gilsan {
namespace {

constexpr int kCannotRun = 127;

int report_fd_from_environment() {
  const char* text = std::getenv(kChildReportFdVariable);
  char* end = nullptr;
  const long fd = text != nullptr ? std::strtol(text, &end, 10) : -1;
  if (text == nullptr || *end != '\0' || fd < 0 || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
  return static_cast<int>(fd);
}

}  // namespace

void run_program_child(const ProgramArguments& arguments) {
  const int report_fd = report_fd_from_environment();
  if (report_fd < 0) {
    std::fprintf(stderr, "gilsan: %s is internal; use 'gilsan run -- COMMAND'\n", kProgramChildCommand);
    ::_exit(2);
  }
  // The program must not inherit the report channel: exec closes it, which the parent reads as the end.
  ::fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  ChildReportWriter writer(report_fd);
  // Programs under test crash on purpose; their core files would only fill the working folder.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  std::string command_line;
  for (const std::string& argument : arguments.command) command_line += (command_line.empty() ? "" : " ") + argument;
  writer.program(command_line);
  std::vector<char*> argv;
  for (const std::string& argument : arguments.command) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv.front(), argv.data());
  const int error = errno;
  writer.error("cannot run '" + arguments.command.front() + "': " + errno_text(error));
  ::_exit(kCannotRun);
}

}  // namespace gilsan
