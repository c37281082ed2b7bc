#include "harness/watchdog/hang_detector.h"

#include <algorithm>

#include "harness/watchdog/proc_threads.h"

namespace gilsan::watchdog {

ThreadActivity describe_activity(int tid, const ProcThreadState* proc, const board::ThreadRecord* record) {
  ThreadActivity activity;
  activity.tid = tid;
  if (proc != nullptr) {
    activity.cpu_ns = proc->cpu_ns;
    activity.timeslices = proc->timeslices;
    activity.sleeping = sleeps_on_a_timer(*proc);
  }
  bool kernel_says_waiting = proc != nullptr && looks_blocked(*proc);
  if (record != nullptr) {
    auto strong = [&](std::string on, std::uint64_t since_ns) {
      activity.blocking = ThreadActivity::Blocking::Strong;
      activity.blocked_on = std::move(on);
      activity.blocked_since_ns = since_ns;
      return activity;
    };
    if (!record->calls.empty()) {
      const board::CallRecord& call = record->calls.back();
      return strong("call " + call.entry_point + " at " + std::to_string(call.entered_ns), call.entered_ns);
    }
    if (record->gil_state == board::GilState::Waiting) {
      return strong("gil at " + std::to_string(record->gil_changed_ns), record->gil_changed_ns);
    }
    if (record->waiting_lock) {
      // Weak, though the board says it: a user lock's holder may be sleeping with it (a worker holding
      // a lock across slow I/O), and a wait behind a sleeper is held back exactly as a wait only the
      // kernel shows is. A holder that waits in the driver is blocked strongly itself.
      activity.blocking = ThreadActivity::Blocking::Weak;
      activity.blocked_on =
          "lock " + std::to_string(record->waiting_lock->id) + " at " + std::to_string(record->waiting_lock->since_ns);
      activity.blocked_since_ns = record->waiting_lock->since_ns;
      return activity;
    }
    if (!record->host_functions.empty() && kernel_says_waiting) {
      const board::HostFunctionRecord& function = record->host_functions.front();
      return strong("host function " + std::to_string(function.id) + " at " + std::to_string(function.at_ns), 0);
    }
  }
  if (kernel_says_waiting) {
    activity.blocking = ThreadActivity::Blocking::Weak;
    activity.blocked_on = proc->state == 'D' ? "uninterruptible" : syscall_name(proc->syscall.number);
  }
  return activity;
}

void HangDetector::restart(std::uint64_t now_ns) {
  last_progress_ns_ = now_ns;
  blocked_.clear();
  cpu_ns_.clear();
  sleep_timeslices_.clear();
  periodic_sleepers_.clear();
  last_thread_sample_ns_ = 0;
}

void HangDetector::restart_from_counters(std::uint64_t now_ns) {
  restart(now_ns);
  last_counter_progress_ns_ = now_ns;
  computed_ns_.clear();
  computed_outside_driver_ns_.clear();
  spinners_.clear();
}

std::uint64_t HangDetector::interval_since_last_sample(std::uint64_t now_ns) const {
  return last_thread_sample_ns_ != 0 && now_ns > last_thread_sample_ns_ ? now_ns - last_thread_sample_ns_ : 0;
}

bool HangDetector::uses_cpu(const ThreadActivity& thread, std::uint64_t interval_ns) const {
  auto before = cpu_ns_.find(thread.tid);
  return before != cpu_ns_.end() && interval_ns > 0 && thread.cpu_ns >= before->second &&
         static_cast<double>(thread.cpu_ns - before->second) >= options_.cpu_progress_fraction * static_cast<double>(interval_ns);
}

std::vector<int> HangDetector::threads_to_check(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads) const {
  std::vector<int> tids;
  if (!started_ || now_ns < last_counter_progress_ns_ + options_.quiet_ns) return tids;
  std::uint64_t interval = interval_since_last_sample(now_ns);
  for (const ThreadActivity& thread : threads) {
    if (thread.blocking != ThreadActivity::Blocking::None) continue;
    if (spinners_.count(thread.tid) != 0 || uses_cpu(thread, interval)) tids.push_back(thread.tid);
  }
  return tids;
}

bool HangDetector::someone_sleeps_long(const std::vector<ThreadActivity>& threads) {
  bool long_sleep = false;
  for (const ThreadActivity& thread : threads) {
    if (!thread.sleeping) {
      sleep_timeslices_.erase(thread.tid);
      continue;
    }
    if (periodic_sleepers_.count(thread.tid) != 0) continue;
    auto seen = sleep_timeslices_.find(thread.tid);
    if (seen == sleep_timeslices_.end()) {
      sleep_timeslices_[thread.tid] = thread.timeslices;  // not known yet: assume one long sleep
      long_sleep = true;
    } else if (seen->second != thread.timeslices) {
      periodic_sleepers_.insert(thread.tid);  // it woke up and slept again
    } else {
      long_sleep = true;
    }
  }
  return long_sleep;
}

bool HangDetector::observe_progress(std::uint64_t now_ns, const ProgressSample& sample) {
  bool progress = !started_ || sample.counters != last_sample_.counters || now_ns < sample.device_busy_until_ns;
  started_ = true;
  last_sample_ = sample;
  if (progress) restart_from_counters(now_ns);
  return progress;
}

HangVerdict HangDetector::observe_threads(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads) {
  HangVerdict verdict;
  std::uint64_t interval = interval_since_last_sample(now_ns);
  bool computing = false;
  bool someone_sleeps = someone_sleeps_long(threads);
  std::map<int, Blocked> still_blocked;
  std::map<int, std::uint64_t> cpu_now;
  std::set<int> spinners;
  for (const ThreadActivity& thread : threads) {
    cpu_now[thread.tid] = thread.cpu_ns;
    bool spinning = thread.blocking == ThreadActivity::Blocking::None && !thread.spinning_in.empty();
    bool counts = spinning || thread.blocking == ThreadActivity::Blocking::Strong ||
                  (thread.blocking == ThreadActivity::Blocking::Weak && !someone_sleeps);
    if (!counts) {
      if (thread.blocking == ThreadActivity::Blocking::None && uses_cpu(thread, interval)) {
        computing = true;
        computed_ns_[thread.tid] = now_ns;
        if (thread.stack_checked) computed_outside_driver_ns_[thread.tid] = now_ns;
      }
      continue;
    }
    std::string on = thread.blocked_on;
    std::uint64_t since_ns = thread.blocked_since_ns;
    if (spinning) {
      // Its CPU use since the counters last moved was this spin, unless a check saw it elsewhere.
      spinners.insert(thread.tid);
      on = "spinning in " + thread.spinning_in;
      since_ns = last_counter_progress_ns_;
      if (auto outside = computed_outside_driver_ns_.find(thread.tid); outside != computed_outside_driver_ns_.end()) {
        since_ns = std::max(since_ns, outside->second);
      }
    }
    auto known = blocked_.find(thread.tid);
    Blocked blocked{on, spinning || since_ns != 0 ? since_ns : now_ns};
    if (known != blocked_.end() && known->second.on == on) blocked = known->second;
    still_blocked[thread.tid] = blocked;
  }
  spinners_ = std::move(spinners);
  if (computing) {
    restart(now_ns);
    cpu_ns_ = std::move(cpu_now);
    last_thread_sample_ns_ = now_ns;
    return verdict;
  }
  blocked_ = std::move(still_blocked);
  cpu_ns_ = std::move(cpu_now);
  last_thread_sample_ns_ = now_ns;
  // The quiet period runs from the last progress that was not a spinner's CPU use (restart() counted
  // that use as computing before a stack check named it a spin).
  last_progress_ns_ = last_counter_progress_ns_;
  for (const auto& [tid, at_ns] : computed_ns_) {
    if (spinners_.count(tid) == 0) last_progress_ns_ = std::max(last_progress_ns_, at_ns);
  }
  for (const auto& [tid, at_ns] : computed_outside_driver_ns_) last_progress_ns_ = std::max(last_progress_ns_, at_ns);
  if (now_ns < last_progress_ns_ + options_.quiet_ns) return verdict;
  for (const auto& [tid, blocked] : blocked_) {
    if (now_ns >= blocked.since_ns + options_.quiet_ns) verdict.blocked_tids.push_back(tid);
  }
  verdict.hung = !verdict.blocked_tids.empty();
  return verdict;
}

}  // namespace gilsan::watchdog
