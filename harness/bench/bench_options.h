// BenchOptions: what `gilsan bench` was asked to measure and where its outputs go.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gilsan::bench {

struct BenchOptions {
  std::string driver = "sim";                 // --driver real|sim
  std::vector<std::string> implementations;  // --impl a,b (empty: every one gilsan knows)
  std::optional<std::string> json_path;
  std::optional<std::string> markdown_path;
  std::optional<std::string> svg_path;
  std::optional<std::string> from_json;   // --from-json FILE: render an earlier run's Markdown/SVG only
  std::optional<std::string> python_env;  // --python-env VENV: its bin/python runs the workloads
  bool quick = false;                     // --quick: few callbacks and rounds (CI's smoke test)
  bool help = false;
};

// A bad flag or value, said in one line.
class BenchUsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses and checks the arguments after `bench`: known implementations, a driver kind, output paths
// whose folder exists and is writable, a virtualenv with bin/python. Throws BenchUsageError.
BenchOptions parse_bench_options(const std::vector<std::string>& arguments);

// The implementations --impl accepts, in the order rows are listed.
const std::vector<std::string>& known_implementations();

std::string bench_usage_text();

}  // namespace gilsan::bench
