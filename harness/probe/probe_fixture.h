// ProbeFixture: the driver state every probe case starts from, and the helpers recipes build on.
//
// Device 0's primary context, current on every thread the probe uses, with two non-blocking
// streams: S1, where the probe's host function runs, and S2, an idle stream for calls that need one.
// Non-blocking, so the legacy NULL stream (synchronous copies and memsets) never waits for S1.
#pragma once

#include <cuda.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "harness/driver/driver_table.h"

namespace gilsan::probe {

// A step that had to succeed for a case to measure anything failed.
class SetupFailure : public std::runtime_error {
 public:
  SetupFailure(std::string step, CUresult code, std::string code_name)
      : std::runtime_error(step + " failed with " + code_name),
        step_(std::move(step)),
        code_(code),
        code_name_(std::move(code_name)) {}
  const std::string& step() const { return step_; }
  CUresult code() const { return code_; }
  const std::string& code_name() const { return code_name_; }

 private:
  std::string step_;
  CUresult code_;
  std::string code_name_;
};

class ProbeFixture {
 public:
  // Device 0, its primary context made current, S1 and S2. Throws SetupFailure.
  explicit ProbeFixture(const DriverTable& driver);
  ProbeFixture(const ProbeFixture&) = delete;
  ProbeFixture& operator=(const ProbeFixture&) = delete;

  const DriverTable& driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream s1 = nullptr;
  CUstream s2 = nullptr;

  std::string name(CUresult code) const { return driver.error_name(code); }
  // Throws SetupFailure naming `step` unless `code` is CUDA_SUCCESS.
  void check(const std::string& step, CUresult code) const;
  // Makes the fixture's context current on the calling thread (each new thread needs it once).
  void make_current() const;

  // The spin kernel's module image (PTX text, harness/driver/device_work.h) and its entry name.
  const void* module_image() const;
  const char* spin_kernel_name() const;

  // Helpers for recipes' preparation steps; each throws SetupFailure when the driver refuses.
  CUstream new_stream() const;
  CUevent new_event() const;
  CUevent new_recorded_event(CUstream stream) const;
  CUdeviceptr new_device_memory(std::size_t bytes) const;
  void* new_pinned_memory(std::size_t bytes) const;
  CUmodule load_module() const;
  CUfunction spin_function(CUmodule module) const;
  CUlibrary load_library() const;
  CUkernel spin_kernel(CUlibrary library) const;
  CUcontext new_context() const;  // created, then popped: the fixture's context stays current
  CUgraph new_graph() const;
  CUgraphNode add_empty_node(CUgraph graph) const;
  CUgraphNode add_host_node(CUgraph graph) const;
  CUgraphExec instantiate(CUgraph graph) const;
  CUuserObject new_user_object() const;
  CUmemoryPool default_pool() const;
  // Keeps `stream` busy for `duration`: a spin kernel on both drivers (harness/driver/device_work.h).
  void launch_device_work(CUstream stream, std::chrono::microseconds duration) const;
};

// A host function that does nothing: for enqueues whose running does not matter.
void CUDA_CB do_nothing(void* user_data);

}  // namespace gilsan::probe
