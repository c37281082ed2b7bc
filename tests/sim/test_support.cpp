#include "tests/sim/test_support.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

namespace gilsan::test {
namespace {

std::unique_ptr<DriverTable> g_driver;
bool g_simulated = true;

}  // namespace

ProfileFile::ProfileFile(const std::string& text) {
  static std::atomic<int> made{0};
  path_ = std::filesystem::temp_directory_path() /
          ("gilsan-sim-test-" + std::to_string(::getpid()) + "-" + std::to_string(++made) + ".json");
  std::ofstream(path_) << text;
}

ProfileFile::~ProfileFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void CUDA_CB do_nothing(void*) {}

void set_driver(std::unique_ptr<DriverTable> table, bool simulated) {
  g_driver = std::move(table);
  g_simulated = simulated;
}

const DriverTable& driver() { return *g_driver; }
bool on_sim() { return g_simulated; }
const char* driver_name() { return g_simulated ? "sim" : "real"; }

std::string result_name(CUresult result) { return driver().error_name(result); }

void CUDA_CB count_run(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

PrimaryContext::PrimaryContext(int ordinal) {
  EXPECT_CU(driver().cuDeviceGet(&device_, ordinal));
  EXPECT_CU(driver().cuDevicePrimaryCtxRetain(&context_, device_));
  EXPECT_CU(driver().cuCtxSetCurrent(context_));
}

PrimaryContext::~PrimaryContext() {
  driver().cuCtxSynchronize();
  driver().cuCtxSetCurrent(nullptr);
  driver().cuDevicePrimaryCtxRelease(device_);
}

Stream::Stream(unsigned flags) { EXPECT_CU(driver().cuStreamCreate(&stream_, flags)); }
Stream::~Stream() {
  if (stream_ != nullptr) driver().cuStreamDestroy(stream_);
}

Event::Event(unsigned flags) { EXPECT_CU(driver().cuEventCreate(&event_, flags)); }
Event::~Event() {
  if (event_ != nullptr) driver().cuEventDestroy(event_);
}

Gate::~Gate() {
  open();
  // The host function may still be returning on its thread; wait until it no longer touches this.
  if (entered_.load()) eventually([&] { return left_.load(); });
}

void CUDA_CB Gate::run(void* user_data) {
  auto* gate = static_cast<Gate*>(user_data);
  std::unique_lock<std::mutex> lock(gate->mutex_);
  gate->thread_ = std::this_thread::get_id();
  gate->entered_.store(true);
  gate->changed_.notify_all();
  gate->changed_.wait(lock, [&] { return gate->open_; });
  gate->left_.store(true);
}

bool Gate::wait_entered(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return entered_.load(); });
}

void Gate::open() {
  std::lock_guard<std::mutex> guard(mutex_);
  open_ = true;
  changed_.notify_all();
}

std::thread::id Gate::thread() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return thread_;
}

void HostFunctionLog::record(int id) {
  std::lock_guard<std::mutex> guard(mutex);
  order.push_back(id);
  threads.push_back(std::this_thread::get_id());
}

void CUDA_CB LoggedCall::run(void* user_data) {
  auto* call = static_cast<LoggedCall*>(user_data);
  HostFunctionLog& log = *call->log;
  int now = log.running.fetch_add(1) + 1;
  int most = log.most_at_once.load();
  while (now > most && !log.most_at_once.compare_exchange_weak(most, now)) {
  }
  log.record(call->id);
  if (call->hold.count() > 0) std::this_thread::sleep_for(call->hold);
  log.running.fetch_sub(1);
}

}  // namespace gilsan::test
