#include "harness/child/program_child.h"

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

}  // namespace

void run_program_child(const ProgramArguments& arguments) {
  // The program must not inherit the report channel (it is close-on-exec): exec closes it, which the
  // parent reads as the end.
  const int report_fd = inherited_report_fd();
  if (report_fd < 0) {
    std::fprintf(stderr, "gilsan: %s is internal; use 'gilsan run -- COMMAND'\n", kProgramChildCommand);
    ::_exit(2);
  }
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
