#include "harness/simcuda/sim_thread_pool.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace gilsan::sim {
namespace {

struct ThreadPool {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> jobs;
  std::size_t idle = 0;  // threads waiting for a job
};

ThreadPool& pool() {
  static auto* threads = new ThreadPool();  // leaked with the rest of the driver's state
  return *threads;
}

void work() {
  ThreadPool& self = pool();
  std::unique_lock<std::mutex> lock(self.mutex);
  for (;;) {
    ++self.idle;
    self.wake.wait(lock, [&] { return !self.jobs.empty(); });
    --self.idle;
    std::function<void()> job = std::move(self.jobs.front());
    self.jobs.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what the job held is released here, outside every lock
    lock.lock();
  }
}

}  // namespace

void run_on_driver_thread(std::function<void()> job) {
  ThreadPool& self = pool();
  std::lock_guard<std::mutex> guard(self.mutex);
  self.jobs.push_back(std::move(job));
  // Each idle thread takes one job; one that was woken but has not run yet still counts as idle.
  if (self.idle >= self.jobs.size()) {
    self.wake.notify_one();
    return;
  }
  try {
    std::thread(work).detach();
  } catch (...) {
    self.jobs.pop_back();
    throw;
  }
}

}  // namespace gilsan::sim
