#include "harness/watchdog/watchdog.h"

#include <map>


namespace gilsan::watchdog {

const char* to_string(DetectionKind kind) {
  switch (kind) {
    case DetectionKind::Hang: return "hang";
    case DetectionKind::Crash: return "crash";
    case DetectionKind::Timeout: return "timeout";
  }
  return "invalid";
}

Watchdog::Watchdog(pid_t pid, board::Board& board, WatchdogOptions options)
    : pid_(pid),
      reader_(board),
      options_(options),
      detector_(HangDetector::Options{
          static_cast<std::uint64_t>(std::chrono::nanoseconds(options.effective_quiet()).count()),
          options.cpu_progress_fraction}),
      symbolizer_(pid, {}),
      spin_check_(pid, reader_, symbolizer_,
                  options.under_valgrind ? options.spin_check_timeout * options.valgrind_factor
                                         : options.spin_check_timeout),
      descendants_(pid, options.cpu_progress_fraction),
      trace_(options.trace_path),
      certain_(options.blocks_while_host_function_runs,
               static_cast<std::uint64_t>(
                   std::chrono::nanoseconds(options.effective_certain_confirmation()).count())) {}

std::optional<Detection> Watchdog::tick() { return tick(board::monotonic_ns()); }

std::vector<ThreadActivity> Watchdog::activities_of(const Snapshot& view) {
  std::vector<ThreadActivity> activities;
  for (const ThreadSnapshot& thread : view.threads) {
    if (thread.exited()) continue;  // a slot of the board whose thread /proc no longer lists
    activities.push_back(describe_activity(thread.tid, &*thread.proc, thread.board ? &*thread.board : nullptr));
  }
  return activities;
}

void Watchdog::check_for_driver_spins(std::uint64_t now_ns, std::vector<ThreadActivity>& activities) {
  std::vector<int> tids = detector_.threads_to_check(now_ns, activities);
  spin_checked_ = !tids.empty();
  if (tids.empty()) return;
  std::map<int, std::string> found = spin_check_.check(tids);
  for (ThreadActivity& activity : activities) {
    auto result = found.find(activity.tid);
    if (result == found.end()) continue;
    activity.stack_checked = true;
    activity.spinning_in = result->second;
  }
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
    trace_.progress(now_ns);
    deferred_until_ns_ = 0;
    certain_.forget();
    return std::nullopt;
  }
  if (now_ns < deferred_until_ns_) return std::nullopt;
  open_source_lines_when_half_quiet(now_ns);
  auto interval = static_cast<std::uint64_t>(std::chrono::nanoseconds(
      certain_.seeing_cycle() ? options_.confirmation_sample_interval : options_.thread_sample_interval).count());
  if (last_thread_sample_ns_ != 0 && now_ns < last_thread_sample_ns_ + interval) return std::nullopt;
  last_thread_sample_ns_ = now_ns;
  // One look at /proc and the board per sample, for the certain-cycle watch and the hang detector both.
  const Snapshot view = take_board_view(pid_, reader_, detector_.last_progress_ns());
  if (certain_.confirmed(now_ns, view)) {
    Detection detection = snapshot_now(DetectionKind::Hang);
    detection.detected_ns = now_ns;
    detection.certain_for_ns = certain_.held_ns(now_ns);
    detection.blocked_tids = certain_.threads();
    detected_ = true;
    return detection;
  }
  // A certain cycle under confirmation is reported within the confirmation, long before half a quiet
  // period: its snapshot's native frames are named now, once per quiet stretch (its threads cannot
  // move, so the snapshot finds the same frames).
  if (certain_.seeing_cycle() && named_ahead_for_ns_ != detector_.last_progress_ns()) {
    named_ahead_for_ns_ = detector_.last_progress_ns();
    name_native_stacks_ahead(pid_, reader_, symbolizer_, options_.snapshot);
  }
  std::vector<ThreadActivity> activities = activities_of(view);
  check_for_driver_spins(now_ns, activities);
  HangVerdict verdict = detector_.observe_threads(now_ns, activities);
  if (trace_.on()) {
    const std::map<int, std::string> none;
    trace_.sample(now_ns, activities, spin_checked_ ? spin_check_.last_missing() : none,
                  spin_checked_ ? spin_check_.last_frames() : none, verdict);
  }
  if (!verdict.hung) return std::nullopt;
  Detection detection = snapshot_now(DetectionKind::Hang);
  detection.detected_ns = now_ns;
  for (const ThreadActivity& activity : activities) {
    if (activity.spinning_in.empty()) continue;
    for (ThreadSnapshot& thread : detection.snapshot.threads) {
      if (thread.tid == activity.tid) thread.spinning_in = activity.spinning_in;
    }
  }
  detection.blocked_tids = std::move(verdict.blocked_tids);
  detected_ = true;
  return detection;
}

bool Watchdog::defer_unexplained_hang(std::uint64_t now_ns) {
  const auto unexplained = static_cast<std::uint64_t>(std::chrono::nanoseconds(options_.effective_unexplained_quiet()).count());
  const std::uint64_t until = detector_.last_progress_ns() + unexplained;
  if (detector_.last_progress_ns() == 0) return false;
  if (now_ns < until) {
    deferred_until_ns_ = until;
    detected_ = false;
    return true;
  }
  // The program's own threads have waited all this time, but a child process of its own may be doing
  // the work they wait for (descendant_activity.h). Looked at only here, once per deferral: it reads
  // /proc for the whole process tree, and a hang the snapshot explains is never held back by it.
  if (descendants_.moved_since_last_look(now_ns)) {
    detector_.observe_progress_elsewhere(now_ns);
    trace_.progress(now_ns);
    deferred_until_ns_ = 0;
    detected_ = false;
    return true;
  }
  return false;
}

// Half a quiet period without progress: a snapshot may follow, and its file:line needs each module's
// DWARF opened (tens of milliseconds); a stretch that ends in progress loses nothing but that work.
void Watchdog::open_source_lines_when_half_quiet(std::uint64_t now_ns) {
  const std::uint64_t last_progress_ns = detector_.last_progress_ns();
  const auto half_quiet = static_cast<std::uint64_t>(std::chrono::nanoseconds(options_.effective_quiet()).count()) / 2;
  if (last_progress_ns == 0 || now_ns < last_progress_ns + half_quiet || opened_ahead_for_ns_ == last_progress_ns) return;
  opened_ahead_for_ns_ = last_progress_ns;
  symbolizer_.open_source_lines_ahead();
}

Detection Watchdog::snapshot_now(DetectionKind kind) {
  Detection detection;
  detection.kind = kind;
  detection.detected_ns = board::monotonic_ns();
  detection.quiet_ns = detector_.quiet_ns();
  detection.snapshot = take_snapshot(pid_, reader_, symbolizer_, options_.snapshot, detector_.last_progress_ns());
  detection.reported_ns = board::monotonic_ns();
  return detection;
}

}  // namespace gilsan::watchdog
