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
    activity.sleeping = proc->syscall.kind == SyscallState::Kind::InSyscall &&
                        (syscall_name(proc->syscall.number) == "nanosleep" ||
                         syscall_name(proc->syscall.number) == "clock_nanosleep");
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
      return strong("lock " + std::to_string(record->waiting_lock->id) + " at " +
                        std::to_string(record->waiting_lock->since_ns),
                    record->waiting_lock->since_ns);
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
  if (progress) restart(now_ns);
  return progress;
}

HangVerdict HangDetector::observe_threads(std::uint64_t now_ns, const std::vector<ThreadActivity>& threads) {
  HangVerdict verdict;
  std::uint64_t interval = last_thread_sample_ns_ != 0 && now_ns > last_thread_sample_ns_
                               ? now_ns - last_thread_sample_ns_
                               : 0;
  bool computing = false;
  bool someone_sleeps = someone_sleeps_long(threads);
  std::map<int, Blocked> still_blocked;
  std::map<int, std::uint64_t> cpu_now;
  for (const ThreadActivity& thread : threads) {
    cpu_now[thread.tid] = thread.cpu_ns;
    bool counts = thread.blocking == ThreadActivity::Blocking::Strong ||
                  (thread.blocking == ThreadActivity::Blocking::Weak && !someone_sleeps);
    if (!counts) {
      auto before = cpu_ns_.find(thread.tid);
      if (thread.blocking == ThreadActivity::Blocking::None && before != cpu_ns_.end() && interval > 0 &&
          thread.cpu_ns >= before->second &&
          static_cast<double>(thread.cpu_ns - before->second) >= options_.cpu_progress_fraction * interval) {
        computing = true;
      }
      continue;
    }
    auto known = blocked_.find(thread.tid);
    Blocked blocked{thread.blocked_on, thread.blocked_since_ns != 0 ? thread.blocked_since_ns : now_ns};
    if (known != blocked_.end() && known->second.on == thread.blocked_on) blocked = known->second;
    still_blocked[thread.tid] = blocked;
  }
  if (computing) {
    restart(now_ns);
    cpu_ns_ = std::move(cpu_now);
    last_thread_sample_ns_ = now_ns;
    return verdict;
  }
  blocked_ = std::move(still_blocked);
  cpu_ns_ = std::move(cpu_now);
  last_thread_sample_ns_ = now_ns;
  if (now_ns < last_progress_ns_ + options_.quiet_ns) return verdict;
  for (const auto& [tid, blocked] : blocked_) {
    if (now_ns >= blocked.since_ns + options_.quiet_ns) verdict.blocked_tids.push_back(tid);
  }
  verdict.hung = !verdict.blocked_tids.empty();
  return verdict;
}

}  // namespace gilsan::watchdog
