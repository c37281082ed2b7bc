// SourceLinesCache: the SourceLines of each module file, opened once, shareable between the thread
// that names a snapshot's frames and one that opens files ahead of it. Opening is the expensive part of
// file:line (finding and reading a separate debug file: ~60 ms for glibc's), so the watchdog starts it
// while a quiet stretch is still short of a hang (Watchdog::tick), and the snapshot finds it done.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/symbols/source_lines.h"

namespace gilsan::watchdog {

class SourceLinesCache {
 public:
  SourceLinesCache() = default;
  ~SourceLinesCache();  // waits for a background open to finish
  SourceLinesCache(const SourceLinesCache&) = delete;
  SourceLinesCache& operator=(const SourceLinesCache&) = delete;

  // nullptr when the file has no DWARF (remembered). Opens it now unless it was opened before; while
  // another thread opens files, waits for the one in hand. Each SourceLines is then used by one
  // thread at a time: the opener never touches a file again once it is in the cache.
  const SourceLines* get(const std::string& path);

  // Opens `paths` on a thread of its own, unless one is still at it; returns at once.
  void open_in_background(std::vector<std::string> paths);

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<SourceLines>> opened_;
  std::thread opener_;
  bool opening_ = false;  // guarded by mutex_
};

}  // namespace gilsan::watchdog
