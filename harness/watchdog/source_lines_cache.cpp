#include "harness/watchdog/source_lines_cache.h"

namespace gilsan::watchdog {

SourceLinesCache::~SourceLinesCache() {
  if (opener_.joinable()) opener_.join();
}

const SourceLines* SourceLinesCache::get(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto [entry, inserted] = opened_.try_emplace(path);
  if (inserted) entry->second = SourceLines::open(path);
  return entry->second.get();
}

void SourceLinesCache::open_in_background(std::vector<std::string> paths) {
  {
    std::lock_guard lock(mutex_);
    if (opening_) return;
    opening_ = true;
  }
  if (opener_.joinable()) opener_.join();  // finished: it cleared opening_ last
  opener_ = std::thread([this, paths = std::move(paths)] {
    for (const std::string& path : paths) get(path);
    std::lock_guard lock(mutex_);
    opening_ = false;
  });
}

}  // namespace gilsan::watchdog
