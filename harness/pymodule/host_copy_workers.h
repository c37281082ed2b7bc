// HostCopyWorkers: a fixed set of threads that split one large host memcpy between them.
//
// One thread copies host memory at well below what the memory system can move, so the host half of a
// staged device-to-host copy (copy_to with a PinnedRing) can fan each chunk out to several threads. The
// thread that calls copy() does one part itself and waits for the helpers to finish theirs. Nothing here
// touches Python or the driver: copy() runs on the driver's callback thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace gilsan::pymodule {

class HostCopyWorkers {
 public:
  // Parts are never smaller than this: below it, waking a helper costs more than the copy it would do.
  static constexpr std::size_t kMinPartBytes = std::size_t{64} * 1024;
  static constexpr unsigned kMaxThreads = 256;

  // `threads` in 1..kMaxThreads, the caller of copy() included (so threads - 1 helpers are started).
  explicit HostCopyWorkers(unsigned threads);
  ~HostCopyWorkers();
  HostCopyWorkers(const HostCopyWorkers&) = delete;
  HostCopyWorkers& operator=(const HostCopyWorkers&) = delete;

  unsigned threads() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // Copies n bytes (ranges must not overlap) and returns when every part is done. One caller at a time.
  void copy(void* destination, const void* source, std::size_t n);

 private:
  struct Job {
    char* destination = nullptr;
    const char* source = nullptr;
    std::size_t size = 0;
    std::size_t part = 0;  // bytes per part; part i covers [i * part, (i + 1) * part) clipped to size
  };

  void helper_loop(unsigned index);
  static void copy_part(const Job& job, unsigned index);

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  Job job_;
  unsigned long long generation_ = 0;  // bumped for each job, so a helper takes every job exactly once
  unsigned helpers_busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace gilsan::pymodule
