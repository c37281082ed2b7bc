// gilsan_watchdog_measure: detection latency of the watchdog, from hang onset (the test child writes
// the CLOCK_MONOTONIC time at which it starts to hang) to the report being complete (snapshot taken,
// stacks symbolized). Not a test: it prints numbers for docs/watchdog.md.
//
//   gilsan_watchdog_measure [--runs N] [--quiet-ms Q] [--tick-ms T] [MODE...]
//   MODE: gil-inversion (default), locks, silent-locks, condition (the test child), or python (a plain
//   python3 hung on the GIL, with faulthandler's Python stacks collected)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tests/watchdog/child_runner.h"

namespace {

using gilsan::watchdog::testing::ChildRun;
using gilsan::watchdog::testing::ChildRunOptions;

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

int usage(const char* program) {
  std::fprintf(stderr, "usage: %s [--runs N] [--quiet-ms Q] [--tick-ms T] [gil-inversion|locks|silent-locks|condition|python...]\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 30;
  int quiet_ms = 500;
  int tick_ms = 10;
  std::vector<std::string> modes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--runs" || arg == "--quiet-ms" || arg == "--tick-ms") && i + 1 < argc) {
      int value = std::atoi(argv[++i]);
      if (value <= 0) return usage(argv[0]);
      (arg == "--runs" ? runs : arg == "--quiet-ms" ? quiet_ms : tick_ms) = value;
    } else if (arg.rfind("--", 0) == 0) {
      return usage(argv[0]);
    } else {
      modes.push_back(arg);
    }
  }
  if (modes.empty()) modes.push_back("gil-inversion");

  std::string onset_file = "/tmp/gilsan-measure-onset-" + std::to_string(::getpid());
  std::printf("quiet period %d ms, supervision tick %d ms, %d runs per mode\n", quiet_ms, tick_ms, runs);
  std::printf("%-14s %8s %10s %10s %10s %14s\n", "mode", "detected", "median_ms", "p99_ms", "max_ms", "p99-quiet_ms");
  for (const std::string& mode : modes) {
    std::vector<double> latencies;
    std::string classes;
    for (int run = 0; run < runs; ++run) {
      ChildRunOptions options;
      options.argv = {GILSAN_TEST_DEADLOCK_CHILD, mode, onset_file};
      if (mode == "python") {
        options.argv = {GILSAN_TEST_PYTHON, GILSAN_TEST_PYTHON_CHILD, GILSAN_TEST_HOOKS_LIBRARY, onset_file};
        options.python_stack_pipe = true;
      }
      options.watchdog.quiet = std::chrono::milliseconds(quiet_ms);
      options.tick = std::chrono::milliseconds(tick_ms);
      ChildRun result = gilsan::watchdog::testing::run_under_watchdog(options);
      std::ifstream in(onset_file);
      std::uint64_t onset_ns = 0;
      in >> onset_ns;
      std::remove(onset_file.c_str());
      if (!result.detection || onset_ns == 0) continue;
      latencies.push_back(static_cast<double>(result.detection->reported_ns - onset_ns) / 1e6);
      if (classes.find(result.report->class_name) == std::string::npos) classes += " " + result.report->class_name;
    }
    if (latencies.empty()) {
      std::printf("%-14s %8d  (no hang detected)\n", mode.c_str(), 0);
      continue;
    }
    double p99 = percentile(latencies, 0.99);
    std::printf("%-14s %8zu %10.1f %10.1f %10.1f %14.1f  class:%s\n", mode.c_str(), latencies.size(),
                percentile(latencies, 0.5), p99, *std::max_element(latencies.begin(), latencies.end()),
                p99 - quiet_ms, classes.c_str());
  }
  return 0;
}
