#include "harness/bench/bench_options.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace gilsan::bench {
namespace {

std::vector<std::string> split_on_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// Checked before any measuring, so that a run of minutes never ends in an unwritable path.
std::string writable_output(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(folder, error)) throw BenchUsageError(flag + " " + path + ": no folder " + folder.string());
  if (fs::is_directory(file, error)) throw BenchUsageError(flag + " " + path + ": is a folder");
  const bool exists = fs::exists(file, error);
  if (::access(exists ? path.c_str() : folder.c_str(), W_OK) != 0)
    throw BenchUsageError(flag + " " + path + ": not writable");
  return path;
}

}  // namespace

const std::vector<std::string>& known_implementations() {
  static const std::vector<std::string> names{"reference", "cupy", "cuda-core", "cuda-bindings", "numba-cuda"};
  return names;
}

BenchOptions parse_bench_options(const std::vector<std::string>& arguments) {
  BenchOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& flag = arguments[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= arguments.size()) throw BenchUsageError(flag + " needs a value");
      return arguments[++i];
    };
    if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else if (flag == "--quick") {
      options.quick = true;
    } else if (flag == "--driver") {
      options.driver = value();
      if (options.driver != "real" && options.driver != "sim")
        throw BenchUsageError("--driver " + options.driver + ": expected real or sim");
    } else if (flag == "--impl") {
      for (const std::string& name : split_on_commas(value())) {
        const auto& known = known_implementations();
        if (std::find(known.begin(), known.end(), name) == known.end())
          throw BenchUsageError("--impl " + name + ": unknown (known: reference, cupy, cuda-core, cuda-bindings, numba-cuda)");
        options.implementations.push_back(name);
      }
      if (options.implementations.empty()) throw BenchUsageError("--impl needs at least one implementation");
    } else if (flag == "--json") {
      options.json_path = writable_output(flag, value());
    } else if (flag == "--markdown") {
      options.markdown_path = writable_output(flag, value());
    } else if (flag == "--svg") {
      options.svg_path = writable_output(flag, value());
    } else if (flag == "--from-json") {
      options.from_json = value();
      if (::access(options.from_json->c_str(), R_OK) != 0)
        throw BenchUsageError("--from-json " + *options.from_json + ": cannot be read");
    } else if (flag == "--python-env") {
      options.python_env = value();
      if (::access((*options.python_env + "/bin/python").c_str(), X_OK) != 0)
        throw BenchUsageError("--python-env " + *options.python_env + ": no bin/python there");
    } else {
      throw BenchUsageError("unknown argument '" + flag + "'");
    }
  }
  return options;
}

std::string bench_usage_text() {
  return "usage: gilsan bench [--driver real|sim] [--impl NAME,...] [--quick] [--python-env VENV]\n"
         "                    [--json FILE] [--markdown FILE] [--svg FILE]\n"
         "       gilsan bench --from-json FILE [--markdown FILE] [--svg FILE]   (an earlier run, re-rendered)\n"
         "Measures the drained cost per host function of gilsan.host_launch, the raw driver and the installed\n"
         "peers (reference, cupy, cuda-core, cuda-bindings, numba-cuda) in interleaved rounds, with medians,\n"
         "spreads and same-run ratios; writes JSON, a Markdown section and an SVG (docs/performance.md).\n";
}

}  // namespace gilsan::bench
