#include "checkers/sources/completion_waits.h"

namespace gilsan::checkers {
namespace {

CompletionWait wait_for_stream(Handle stream) {
  CompletionWait wait;
  if (stream == kNullStream || stream == kLegacyStream) {
    wait.whole_context = true;
  } else {
    wait.streams.push_back(stream);
  }
  return wait;
}

}  // namespace

void CompletionWaits::event_recorded(Handle event, Handle stream) {
  std::lock_guard lock(mutex_);
  recorded_on_[event] = stream;
}

void CompletionWaits::event_destroyed(Handle event) {
  std::lock_guard lock(mutex_);
  recorded_on_.erase(event);
}

CompletionWait CompletionWaits::waits_of(std::string_view entry_point, std::optional<Handle> stream,
                                         std::optional<Handle> event) const {
  if (entry_point == "cuStreamSynchronize") return wait_for_stream(stream.value_or(kNullStream));
  if (entry_point == "cuCtxSynchronize") return CompletionWait{{}, true};
  if (entry_point == "cuEventSynchronize" && event) {
    std::lock_guard lock(mutex_);
    const auto found = recorded_on_.find(*event);
    if (found != recorded_on_.end()) return wait_for_stream(found->second);
  }
  return {};
}

}  // namespace gilsan::checkers
