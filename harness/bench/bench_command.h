// `gilsan bench`: measures host_launch against the raw driver and its peers (docs/performance.md).
//
// The workloads are Python (harness/bench/bench_run.py), so they run in a child interpreter: the
// build's python3, or VENV/bin/python with --python-env (the peers live there), importing the gilsan
// extension module of this build on the chosen driver. This process only checks the arguments, starts
// the child and says how it ended.
#pragma once

#include <string>
#include <vector>

namespace gilsan::bench {

// `arguments` follow the word `bench`. Returns the exit code: 0 measured and written, 1 the child
// failed (its stderr says why), 2 bad arguments (one line on stderr).
int run_bench_command(const std::vector<std::string>& arguments);

}  // namespace gilsan::bench
