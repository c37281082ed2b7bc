#include "harness/watchdog/spin_check.h"

#include <algorithm>

#include "harness/watchdog/frame_inference.h"
#include "harness/watchdog/native_stacks.h"

namespace gilsan::watchdog {

DriverSpinCheck::DriverSpinCheck(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                                 std::chrono::milliseconds answer_timeout)
    : pid_(pid), reader_(reader), symbolizer_(symbolizer), answer_timeout_(answer_timeout) {}

namespace {

constexpr std::size_t kTracedFrames = 8;

std::string innermost_frames(const std::vector<NativeFrame>& frames) {
  std::string text;
  for (std::size_t i = 0; i < std::min(frames.size(), kTracedFrames); ++i) {
    const NativeFrame& frame = frames[i];
    const std::size_t slash = frame.module.rfind('/');
    text += (text.empty() ? "" : " < ") + (frame.symbol.empty() ? std::string("?") : frame.symbol) + " (" +
            (slash == std::string::npos ? frame.module : frame.module.substr(slash + 1)) + ")";
  }
  return text.empty() ? "no frames" : text;
}

}  // namespace

std::map<int, std::string> DriverSpinCheck::check(const std::vector<int>& tids) {
  std::map<int, std::string> found;
  last_missing_.clear();
  last_frames_.clear();
  const auto now = std::chrono::steady_clock::now();
  std::vector<int> asked;
  for (int tid : tids) {
    auto missed = unanswered_.find(tid);
    if (missed == unanswered_.end() || now >= missed->second.ask_again_at) {
      asked.push_back(tid);
    } else {
      last_missing_[tid] = "not asked now: it did not answer the last " + std::to_string(missed->second.in_a_row) +
                           " sampling signal(s); asked again later";
    }
  }
  if (asked.empty()) return found;
  NativeStackRound round = sample_native_stacks(pid_, reader_, asked, 0, answer_timeout_);
  for (const auto& [tid, why] : round.missing) {
    Misses& missed = unanswered_[tid];
    ++missed.in_a_row;
    missed.ask_again_at = std::chrono::steady_clock::now() + std::min(kRetryPause * missed.in_a_row, kLongestRetryPause);
  }
  for (const auto& [tid, frames] : round.stacks) unanswered_.erase(tid);
  last_missing_.insert(round.missing.begin(), round.missing.end());
  if (round.stacks.empty()) return found;
  symbolizer_.update_mappings(read_memory_maps(pid_));
  for (const auto& [tid, frames] : round.stacks) {
    std::vector<NativeFrame> symbolized = symbolizer_.name_stack(frames);
    last_frames_[tid] = innermost_frames(symbolized);
    NativeWait wait = infer_native_wait(symbolized);
    found[tid] = wait.kind == NativeWait::Kind::DriverCall ? normalize_entry_point(wait.frame) : "";
  }
  return found;
}

}  // namespace gilsan::watchdog
