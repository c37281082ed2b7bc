#include "harness/watchdog/watchdog_trace.h"

namespace gilsan::watchdog {
namespace {

const char* blocking_name(ThreadActivity::Blocking blocking) {
  switch (blocking) {
    case ThreadActivity::Blocking::None: return "none";
    case ThreadActivity::Blocking::Weak: return "weak";
    case ThreadActivity::Blocking::Strong: return "strong";
  }
  return "?";
}

}  // namespace

WatchdogTrace::WatchdogTrace(const std::string& path) {
  if (!path.empty()) file_ = std::fopen(path.c_str(), "ae");
}

WatchdogTrace::~WatchdogTrace() {
  if (file_ != nullptr) std::fclose(file_);
}

void WatchdogTrace::progress(std::uint64_t now_ns) {
  if (file_ == nullptr) return;
  if (start_ns_ == 0) start_ns_ = now_ns;
  if (in_progress_) return;
  in_progress_ = true;
  std::fprintf(file_, "%9.3f ms progress on the board\n", static_cast<double>(now_ns - start_ns_) / 1e6);
  std::fflush(file_);
}

void WatchdogTrace::sample(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads,
                           const std::map<int, std::string>& missing, const std::map<int, std::string>& frames,
                           const HangVerdict& verdict) {
  if (file_ == nullptr) return;
  if (start_ns_ == 0) start_ns_ = now_ns;
  in_progress_ = false;
  std::fprintf(file_, "%9.3f ms sample: %s\n", static_cast<double>(now_ns - start_ns_) / 1e6,
               verdict.hung ? "HUNG" : "not hung");
  std::map<int, std::uint64_t> cpu_now;
  for (const ThreadActivity& thread : threads) {
    cpu_now[thread.tid] = thread.cpu_ns;
    auto before = cpu_ns_.find(thread.tid);
    const double cpu_ms =
        before != cpu_ns_.end() && thread.cpu_ns >= before->second ? static_cast<double>(thread.cpu_ns - before->second) / 1e6 : 0.0;
    std::fprintf(file_, "  tid %d blocking=%s%s%s cpu=+%.2fms%s%s%s\n", thread.tid, blocking_name(thread.blocking),
                 thread.blocked_on.empty() ? "" : " on=", thread.blocked_on.c_str(), cpu_ms,
                 thread.sleeping ? " sleeping" : "", thread.stack_checked ? " checked" : "",
                 thread.spinning_in.empty() ? "" : (" spinning-in=" + thread.spinning_in).c_str());
    if (auto why = missing.find(thread.tid); why != missing.end())
      std::fprintf(file_, "    no stack: %s\n", why->second.c_str());
    if (auto seen = frames.find(thread.tid); seen != frames.end())
      std::fprintf(file_, "    frames: %s\n", seen->second.c_str());
  }
  cpu_ns_ = std::move(cpu_now);
  std::fflush(file_);
}

}  // namespace gilsan::watchdog
