#include "harness/pymodule/host_copy_workers.h"

#include <algorithm>
#include <cstring>

namespace gilsan::pymodule {

HostCopyWorkers::HostCopyWorkers(unsigned threads) {
  const unsigned count = std::clamp(threads, 1u, kMaxThreads);
  helpers_.reserve(count - 1);
  for (unsigned index = 1; index < count; ++index) helpers_.emplace_back([this, index] { helper_loop(index); });
}

HostCopyWorkers::~HostCopyWorkers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

void HostCopyWorkers::copy_part(const Job& job, unsigned index) {
  const std::size_t begin = std::min(job.size, static_cast<std::size_t>(index) * job.part);
  const std::size_t end = std::min(job.size, begin + job.part);
  if (end > begin) std::memcpy(job.destination + begin, job.source + begin, end - begin);
}

void HostCopyWorkers::copy(void* destination, const void* source, std::size_t n) {
  if (n == 0) return;
  const std::size_t useful_threads = std::max<std::size_t>(1, n / kMinPartBytes);
  if (helpers_.empty() || useful_threads == 1) {
    std::memcpy(destination, source, n);
    return;
  }
  const std::size_t parts = std::min<std::size_t>(threads(), useful_threads);
  // Parts start on cache-line boundaries of the destination offset, so no two threads share a line.
  constexpr std::size_t kLine = 64;
  const std::size_t part = ((n + parts - 1) / parts + kLine - 1) / kLine * kLine;
  Job job{static_cast<char*>(destination), static_cast<const char*>(source), n, part};
  {
    std::lock_guard lock(mutex_);
    job_ = job;
    helpers_busy_ = static_cast<unsigned>(helpers_.size());
    ++generation_;
  }
  work_ready_.notify_all();
  copy_part(job, 0);
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [this] { return helpers_busy_ == 0; });
}

void HostCopyWorkers::helper_loop(unsigned index) {
  unsigned long long seen = 0;
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    copy_part(job, index);
    bool last = false;
    {
      std::lock_guard lock(mutex_);
      last = --helpers_busy_ == 0;
    }
    if (last) work_done_.notify_one();
  }
}

}  // namespace gilsan::pymodule
