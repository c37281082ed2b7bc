#include "harness/bench/bench_command.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "harness/bench/bench_options.h"
#include "harness/text/errno_text.h"

extern char** environ;

namespace gilsan::bench {
namespace {

std::string python_for(const BenchOptions& options) {
  return options.python_env ? *options.python_env + "/bin/python" : std::string(GILSAN_BENCH_PYTHON);
}

// The child's environment: ours, with the module, the bench scripts and the adapters importable and
// the driver chosen. An existing PYTHONPATH stays after ours; GILSAN_SIM_LIBRARY set by the caller wins.
std::vector<std::string> child_environment(const BenchOptions& options) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.starts_with("PYTHONPATH=") || text.starts_with("GILSAN_DRIVER=")) continue;
    environment.emplace_back(text);
  }
  std::string python_path = std::string("PYTHONPATH=") + GILSAN_BENCH_MODULE_DIR + ":" + GILSAN_BENCH_SCRIPT_DIR + ":" +
                            GILSAN_BENCH_IMPL_DIR;
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0')
    python_path += std::string(":") + existing;
  environment.push_back(python_path);
  environment.push_back("GILSAN_DRIVER=" + options.driver);
  environment.push_back("PYTHONDONTWRITEBYTECODE=1");
  if (options.driver == "sim" && std::getenv("GILSAN_SIM_LIBRARY") == nullptr)
    environment.push_back(std::string("GILSAN_SIM_LIBRARY=") + GILSAN_BENCH_SIM_LIBRARY);
  return environment;
}

std::vector<std::string> child_arguments(const BenchOptions& options) {
  std::vector<std::string> arguments{python_for(options), std::string(GILSAN_BENCH_SCRIPT_DIR) + "/bench_run.py"};
  if (!options.implementations.empty()) {
    std::string joined;
    for (const std::string& name : options.implementations) joined += (joined.empty() ? "" : ",") + name;
    arguments.insert(arguments.end(), {"--impl", joined});
  }
  if (options.quick) arguments.emplace_back("--quick");
  for (const auto& [flag, path] : {std::pair{"--json", options.json_path}, std::pair{"--markdown", options.markdown_path},
                                   std::pair{"--svg", options.svg_path}, std::pair{"--from-json", options.from_json}})
    if (path) arguments.insert(arguments.end(), {flag, *path});
  return arguments;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

int run_bench_command(const std::vector<std::string>& arguments) {
  BenchOptions options;
  try {
    options = parse_bench_options(arguments);
  } catch (const BenchUsageError& error) {
    std::cerr << "gilsan bench: " << error.what() << " (see gilsan bench --help)\n";
    return 2;
  }
  if (options.help) {
    std::cout << bench_usage_text();
    return 0;
  }
  std::vector<std::string> argv_strings = child_arguments(options);
  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> argv = pointers_to(argv_strings);
  std::vector<char*> envp = pointers_to(env_strings);
  pid_t child = 0;
  if (const int error = ::posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), envp.data()); error != 0) {
    std::cerr << "gilsan bench: cannot start " << argv[0] << ": " << errno_text(error) << "\n";
    return 1;
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  std::cerr << "gilsan bench: the measuring child (" << argv[0] << ") "
            << (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                  : "was killed by signal " + std::to_string(WTERMSIG(status)))
            << "\n";
  return 1;
}

}  // namespace gilsan::bench
