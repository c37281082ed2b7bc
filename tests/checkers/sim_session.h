// The simulated driver for the event-source tests: loaded once per test binary through the driver
// table (as every gilsan binary loads a driver), initialized, with the primary context of device 0
// current on the thread that asks.
#pragma once

#include <cuda.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/driver/driver_table.h"

namespace gilsan::checkers::testing {

class SimSession {
 public:
  static SimSession& get();  // loads and initializes the sim on first use; fails the test on error
  const DriverTable& driver() const { return *table_; }
  const std::string& library_path() const { return table_->library_path(); }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  void make_current() const;  // on the calling thread
  std::string result_name(CUresult result) const { return table_->error_name(result); }

 private:
  SimSession();
  std::unique_ptr<DriverTable> table_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

// A stream of the session's context, destroyed at the end of the scope.
class SimStream {
 public:
  SimStream();
  ~SimStream();
  SimStream(const SimStream&) = delete;
  SimStream& operator=(const SimStream&) = delete;
  CUstream get() const { return stream_; }

 private:
  CUstream stream_ = nullptr;
};

}  // namespace gilsan::checkers::testing
