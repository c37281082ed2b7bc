#include "harness/bench/bench_options.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "harness/cli/option_table.h"

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
  cli::OptionTable table;
  table.flag("-h,--help", [&options] { options.help = true; });
  table.flag("--quick", [&options] { options.quick = true; });
  table.value("--driver", [&options](const std::string& value) {
    if (value != "real" && value != "sim") throw BenchUsageError("--driver " + value + ": expected real or sim");
    options.driver = value;
  });
  // Given twice, --impl adds to the list rather than replacing it.
  table.repeatable("--impl", [&options](const std::string& value) {
    const std::vector<std::string> names = split_on_commas(value);
    if (names.empty()) throw BenchUsageError("--impl needs at least one implementation");
    for (const std::string& name : names) {
      const auto& known = known_implementations();
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw BenchUsageError("--impl " + name + ": unknown (known: reference, cupy, cuda-core, cuda-bindings, numba-cuda)");
      options.implementations.push_back(name);
    }
  });
  table.value("--json", [&options](const std::string& value) { options.json_path = writable_output("--json", value); });
  table.value("--markdown", [&options](const std::string& value) { options.markdown_path = writable_output("--markdown", value); });
  table.value("--svg", [&options](const std::string& value) { options.svg_path = writable_output("--svg", value); });
  table.value("--from-json", [&options](const std::string& value) {
    if (::access(value.c_str(), R_OK) != 0) throw BenchUsageError("--from-json " + value + ": cannot be read");
    options.from_json = value;
  });
  table.value("--python-env", [&options](const std::string& value) {
    if (::access((value + "/bin/python").c_str(), X_OK) != 0) throw BenchUsageError("--python-env " + value + ": no bin/python there");
    options.python_env = value;
  });
  if (const std::optional<std::string> problem = table.parse(arguments)) throw BenchUsageError(*problem);
  return options;
}

std::string bench_usage_text() {
  return "usage: gilsan bench [--driver real|sim] [--impl NAME,...] [--quick] [--python-env VENV]\n"
         "                    [--json FILE] [--markdown FILE] [--svg FILE]\n"
         "       gilsan bench --from-json FILE [--markdown FILE] [--svg FILE]   (an earlier run, re-rendered)\n"
         "Measures the drained cost per host function of gilsan.host_launch, the raw driver and the installed\n"
         "peers (reference, cupy, cuda-core, cuda-bindings, numba-cuda) in interleaved rounds, with medians,\n"
         "spreads and same-run ratios; writes JSON, a Markdown section and an SVG (docs/performance.md).\n"
         "\n"
         "  --driver       real (a GPU) or sim (the simulated driver); default: real if usable, else sim\n"
         "  --impl         the peers to measure beside gilsan and the raw driver (comma-separated, repeatable);\n"
         "                 default: every one installed\n"
         "  --quick        few callbacks and rounds: checks that every row runs, not a measurement\n"
         "  --python-env   a virtualenv whose site-packages hold the peers (same Python version as gilsan's)\n"
         "  --json         write the results (schema gilsan-bench/1): the header, rows, curves and ratios\n"
         "  --markdown     write the results as the Markdown of docs/performance.md\n"
         "  --svg          write the picture: cost per callback by implementation and the scaling curves\n"
         "  --from-json    render an earlier run's JSON again instead of measuring\n"
         "\n"
         "exit codes: 0 measured (a missed target is in the results, not an error), 1 the measuring could\n"
         "            not start or did not finish, 2 usage or input error\n";
}

}  // namespace gilsan::bench
