// What every test of tests/sim shares: the driver under test (chosen with --driver), small RAII
// wrappers, and a gate that holds a host function on its callback thread until the test opens it.
#pragma once

#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/driver/driver_table.h"

namespace gilsan::test {

// The driver the test binary runs against; opened once by main (see sim_test_main.cpp).
const DriverTable& driver();
bool on_sim();
const char* driver_name();  // "sim" or "real"
// Sets the driver for this process (main, child helper).
void set_driver(std::unique_ptr<DriverTable> table, bool simulated);

// "CUDA_SUCCESS" etc., through the driver.
std::string result_name(CUresult result);

// EXPECT_CU(call): the call must succeed; the failure message names the call and the result.
#define EXPECT_CU(call) EXPECT_EQ("CUDA_SUCCESS", ::gilsan::test::result_name(call)) << #call
#define ASSERT_CU(call) ASSERT_EQ("CUDA_SUCCESS", ::gilsan::test::result_name(call)) << #call
#define EXPECT_CU_RESULT(expected, call) \
  EXPECT_EQ(::gilsan::test::result_name(expected), ::gilsan::test::result_name(call)) << #call
#define SIM_ONLY() \
  if (!::gilsan::test::on_sim()) GTEST_SKIP() << "models a property of the simulated driver only"

// Generous bounds for waits that detect a hang; never a measure of speed.
inline constexpr std::chrono::seconds kHangTimeout{20};
// How long a call must stay blocked before a test believes it is held back.
inline constexpr std::chrono::milliseconds kSettle{300};

// A host function that counts its runs: `counter` is a std::atomic<int>.
void CUDA_CB count_run(void* counter);

// Polls `done` until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout = kHangTimeout);

// The primary context of device `ordinal`, retained and current on the calling thread for the scope.
class PrimaryContext {
 public:
  explicit PrimaryContext(int ordinal = 0);
  ~PrimaryContext();
  CUcontext get() const { return context_; }

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class Stream {
 public:
  explicit Stream(unsigned flags = CU_STREAM_NON_BLOCKING);
  ~Stream();
  CUstream get() const { return stream_; }

 private:
  CUstream stream_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = 0);
  ~Event();
  CUevent get() const { return event_; }

 private:
  CUevent event_ = nullptr;
};

// A CUresult as the child prints it: its number.
inline std::string code(CUresult result) { return std::to_string(static_cast<int>(result)); }

// A profile's text in a file of the test's own (for GILSAN_SIM_PROFILE), removed with the object.
class ProfileFile {
 public:
  explicit ProfileFile(const std::string& text);
  ~ProfileFile();
  ProfileFile(const ProfileFile&) = delete;
  ProfileFile& operator=(const ProfileFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// A host function that does nothing, for launches whose work does not matter.
void CUDA_CB do_nothing(void*);

// A host function that, once running, blocks its callback thread until open() is called.
class Gate {
 public:
  ~Gate();  // opens the gate, so no callback thread stays blocked on a destroyed object
  static void CUDA_CB run(void* gate);  // the CUhostFn; user data is the Gate
  CUresult launch(CUstream stream) { return driver().cuLaunchHostFunc(stream, &Gate::run, this); }
  bool wait_entered(std::chrono::milliseconds timeout = kHangTimeout);
  bool entered() const { return entered_.load(); }
  bool left() const { return left_.load(); }
  void open();
  std::thread::id thread() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  std::atomic<bool> entered_{false};
  std::atomic<bool> left_{false};
  std::thread::id thread_;
};

// Host functions that record which thread ran them and how many ran at once.
struct HostFunctionLog {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::atomic<int> running{0};
  std::atomic<int> most_at_once{0};
  void record(int id);
};

struct LoggedCall {
  HostFunctionLog* log;
  int id;
  std::chrono::milliseconds hold{0};
  static void CUDA_CB run(void* call);
};

}  // namespace gilsan::test
