// GILSAN_SIM_FAIL: driver calls the simulated driver fails on purpose, to see what a program and its
// host_launch do when the driver says no (an enqueue refused, memory exhausted) and that everything
// they hold is still released.
//
//   GILSAN_SIM_FAIL=ENTRY=RESULT[:after=N][:count=M][,ENTRY=RESULT...]
//
// ENTRY is an entry point of driver_entry_points.h (cuLaunchHostFunc, cuMemAlloc, ...); RESULT a CUresult
// name (CUDA_ERROR_OUT_OF_MEMORY) or number. The first N calls of ENTRY go through (default 0), then M
// fail (default: every one after that) without doing anything, as a refused call does.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <memory>
#include <string_view>

#include "harness/simcuda/sim_entry_points.h"

namespace gilsan::sim {

class InjectedFailures {
 public:
  // Throws std::invalid_argument naming the item that is wrong.
  static InjectedFailures parse(std::string_view text);

  // What the next call of `entry` must return instead of running: a failure, or CUDA_SUCCESS to run.
  // Thread-safe: each call counts once.
  CUresult next(EntryId entry);

 private:
  struct Rule {
    CUresult result = CUDA_SUCCESS;
    unsigned long long after = 0;
    unsigned long long count = 0;  // 0: every call after `after`
    std::atomic<unsigned long long> calls{0};
  };
  std::array<std::shared_ptr<Rule>, kEntryPointCount> rules_{};
};

}  // namespace gilsan::sim
