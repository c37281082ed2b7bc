#include "harness/watchdog/watchdog.h"

#include <map>

#include "harness/watchdog/proc_threads.h"

namespace gilsan::watchdog {

const char* to_string(DetectionKind kind) {
  switch (kind) {
    case DetectionKind::Hang: return "hang";
    case DetectionKind::Crash: return "crash";
  }
  return "invalid";
}

Watchdog::Watchdog(pid_t pid, board::Board& board, WatchdogOptions options)
    : pid_(pid),
      reader_(board),
      options_(options),
      detector_(HangDetector::Options{
          static_cast<std::uint64_t>(std::chrono::nanoseconds(options.effective_quiet()).count()),
          options.cpu_progress_fraction}) {}

std::optional<Detection> Watchdog::tick() { return tick(board::monotonic_ns()); }

std::vector<ThreadActivity> Watchdog::sample_threads() {
  std::map<int, board::ThreadRecord> records;
  for (board::ThreadRecord& record : reader_.threads()) records[record.tid] = std::move(record);
  std::vector<ThreadActivity> activities;
  for (int tid : list_threads(pid_)) {
    std::optional<ProcThreadState> proc = read_thread_state(pid_, tid);
    auto record = records.find(tid);
    activities.push_back(describe_activity(tid, proc ? &*proc : nullptr,
                                           record != records.end() ? &record->second : nullptr));
  }
  return activities;
}

std::optional<Detection> Watchdog::tick(std::uint64_t now_ns) {
  if (detected_) return std::nullopt;
  if (reader_.crash()) {
    Detection detection = snapshot_now(DetectionKind::Crash);
    detection.detected_ns = now_ns;
    reader_.acknowledge_crash();
    detected_ = true;
    return detection;
  }
  if (detector_.observe_progress(now_ns, ProgressSample{reader_.progress(), reader_.device_busy_until_ns()})) {
    return std::nullopt;
  }
  auto interval = static_cast<std::uint64_t>(std::chrono::nanoseconds(options_.thread_sample_interval).count());
  if (last_thread_sample_ns_ != 0 && now_ns < last_thread_sample_ns_ + interval) return std::nullopt;
  last_thread_sample_ns_ = now_ns;
  HangVerdict verdict = detector_.observe_threads(now_ns, sample_threads());
  if (!verdict.hung) return std::nullopt;
  Detection detection = snapshot_now(DetectionKind::Hang);
  detection.detected_ns = now_ns;
  detection.blocked_tids = std::move(verdict.blocked_tids);
  detected_ = true;
  return detection;
}

Detection Watchdog::snapshot_now(DetectionKind kind) {
  Detection detection;
  detection.kind = kind;
  detection.detected_ns = board::monotonic_ns();
  detection.quiet_ns = detector_.quiet_ns();
  detection.snapshot = take_snapshot(pid_, reader_, options_.snapshot, detector_.last_progress_ns());
  detection.reported_ns = board::monotonic_ns();
  return detection;
}

}  // namespace gilsan::watchdog
