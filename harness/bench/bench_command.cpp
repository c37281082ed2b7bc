#include "harness/bench/bench_command.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/bench/bench_options.h"
#include "harness/driver/install_layout.h"
#include "harness/runner/run_driver.h"
#include "harness/text/errno_text.h"

extern char** environ;

namespace gilsan::bench {
namespace {

std::string python_for(const BenchOptions& options) {
  return options.python_env ? *options.python_env + "/bin/python" : std::string(GILSAN_BENCH_PYTHON);
}

// This process's executable: the child's `gilsan run`s run the same build. Empty if unknown.
std::string own_executable() {
  std::string path(4096, '\0');
  const ssize_t length = ::readlink("/proc/self/exe", path.data(), path.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= path.size()) return {};
  path.resize(static_cast<std::size_t>(length));
  return path;
}

// Where the workloads, the module and the adapters are: an installed tree's copies (docs/installing.md)
// when this gilsan is installed, else the build and source trees it was built from.
std::string bench_script_folder() { return installed_or(installed_data_folder() + "/bench", GILSAN_BENCH_SCRIPT_DIR); }
std::string bench_impl_folder() { return installed_or(installed_data_folder() + "/impl", GILSAN_BENCH_IMPL_DIR); }
std::string bench_module_folder() {
  return installed_or(installed_library_folder() + "/gilsan/python", GILSAN_BENCH_MODULE_DIR);
}
std::string bench_inject_library() {
  const std::string build_tree = GILSAN_BENCH_INJECT_LIBRARY;
  if (build_tree.empty()) return build_tree;  // not part of this build (no CUPTI)
  return installed_or(installed_library_folder() + "/libgilsan_inject.so", build_tree);
}

// The child's environment: ours, with the module, the bench scripts and the adapters importable and
// the driver chosen: `driver_folder`'s variables (GILSAN_DRIVER; on the simulated driver a folder where
// it is libcuda.so.1 first on LD_LIBRARY_PATH, so that the peers' own loads of libcuda.so.1 reach the
// same simulated driver as the module, as in `gilsan run`). An existing PYTHONPATH stays after ours.
std::vector<std::string> child_environment(const DriverFolder& driver_folder) {
  const std::vector<std::pair<std::string, std::string>> driver = driver_folder.child_environment();
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const bool replaced = std::any_of(driver.begin(), driver.end(), [&](const auto& variable) {
      return text.starts_with(variable.first + "=");
    });
    if (replaced || text.starts_with("PYTHONPATH=")) continue;
    environment.emplace_back(text);
  }
  std::string python_path = "PYTHONPATH=" + bench_module_folder() + ":" + bench_script_folder() + ":" + bench_impl_folder();
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0')
    python_path += std::string(":") + existing;
  environment.push_back(python_path);
  for (const auto& [name, value] : driver) environment.push_back(name + "=" + value);
  environment.push_back("PYTHONDONTWRITEBYTECODE=1");
  // The sanitizer and detection rows run `gilsan run` (this executable), inject this build's
  // libraries and put its forwarding driver in front of the real one; a caller's own setting of one wins.
  const std::pair<const char*, std::string> tools[] = {
      {"GILSAN_BENCH_GILSAN", own_executable()},
      {"GILSAN_BENCH_INJECT_LIBRARY", bench_inject_library()},
      {"GILSAN_BENCH_CUPTI_FLOOR_LIBRARY", GILSAN_BENCH_CUPTI_FLOOR_LIBRARY},
      {"GILSAN_BENCH_CUDASHIM_LIBRARY", forwarding_driver_path()}};
  for (const auto& [name, value] : tools)
    if (std::getenv(name) == nullptr && !value.empty()) environment.push_back(std::string(name) + "=" + value);
  return environment;
}

std::vector<std::string> child_arguments(const BenchOptions& options) {
  std::vector<std::string> arguments{python_for(options), bench_script_folder() + "/bench_run.py"};
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
  std::optional<DriverFolder> driver_folder;  // lives until the child is done
  try {
    driver_folder.emplace(RunDriver{options.driver, "gilsan bench --driver " + options.driver, {}}, false);
  } catch (const std::exception& error) {
    std::cerr << "gilsan bench: " << error.what() << "\n";
    return 1;
  }
  std::vector<std::string> env_strings = child_environment(*driver_folder);
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
  // A --from-json file that is not a run: the child said so in one line. (Elsewhere a 2 is not ours to
  // pass on: Python's own exit for a script it cannot open, or argparse's.)
  if (options.from_json && WIFEXITED(status) && WEXITSTATUS(status) == 2) return 2;
  std::cerr << "gilsan bench: the measuring child (" << argv[0] << ") "
            << (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                  : "was killed by signal " + std::to_string(WTERMSIG(status)))
            << "\n";
  return 1;
}

}  // namespace gilsan::bench
