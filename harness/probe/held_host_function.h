// HeldHostFunction: a host function that, once the driver runs it, stays running until the probe
// releases it. It makes no driver call, so whatever waits while it is held waits for the driver's
// own reasons (a lock, a serialized callback thread), never for something the host function does.
#pragma once

#include <cuda.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string_view>

#include "harness/driver/driver_table.h"

namespace gilsan::probe {

// How the held host function reaches the driver (`gilsan probe --held-by`): the outside matrix can be
// measured for each, since a driver may treat them differently (pytorch/FBGEMM #5462 moved to
// cudaLaunchHostFunc on the claim that cudaStreamAddCallback holds the driver's mutex during the
// callback, blocking other threads' calls).
enum class HostFunctionLaunch { LaunchHostFunc, StreamAddCallback, GraphHostNode };

inline constexpr std::string_view kHeldByVariable = "GILSAN_PROBE_HELD_BY";  // the parent tells the cases
const char* to_string(HostFunctionLaunch launch);  // "launch-host-func", "stream-add-callback", "graph-host-node"
std::optional<HostFunctionLaunch> host_function_launch_named(std::string_view name);
// The cases' choice: GILSAN_PROBE_HELD_BY, else cuLaunchHostFunc.
HostFunctionLaunch held_host_function_launch();

class HeldHostFunction {
 public:
  HeldHostFunction() = default;
  HeldHostFunction(const HeldHostFunction&) = delete;
  HeldHostFunction& operator=(const HeldHostFunction&) = delete;
  // The object must outlive the driver's call of it: destroy it only after it has returned.
  ~HeldHostFunction() = default;

  CUresult enqueue(const DriverTable& driver, CUstream stream,
                   HostFunctionLaunch launch = HostFunctionLaunch::LaunchHostFunc);
  // True once the driver has started it.
  bool wait_until_running(std::chrono::milliseconds limit);
  void release();
  bool wait_until_returned(std::chrono::milliseconds limit);
  // The thread the driver ran it on (0 before it ran).
  pid_t thread_id() const;
  enum class Phase { Pending, Running, Returned };
  Phase phase() const;

 private:
  static void CUDA_CB run(void* self);
  static void CUDA_CB run_as_callback(CUstream stream, CUresult status, void* self);
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool running_ = false;
  bool released_ = false;
  bool returned_ = false;
  pid_t thread_id_ = 0;
};

// A host function that only notes that it ran, and on which thread.
class MarkerHostFunction {
 public:
  CUresult enqueue(const DriverTable& driver, CUstream stream);
  bool wait_until_ran(std::chrono::milliseconds limit);
  pid_t thread_id() const;

 private:
  static void CUDA_CB run(void* self);
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool ran_ = false;
  pid_t thread_id_ = 0;
};

}  // namespace gilsan::probe
