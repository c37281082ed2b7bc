#include "checkers/sources/completion_waits.h"

#include "checkers/core/synchronizing_calls.h"

namespace gilsan::checkers {
namespace {

CompletionWait wait_for_stream(Handle stream) {
  CompletionWait wait;
  if (waits_for_whole_context(stream)) {
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
  const std::optional<SynchronizingWait> waits_for = synchronizing_wait(entry_point);
  if (!waits_for) return {};
  switch (*waits_for) {
    case SynchronizingWait::stream:
      return wait_for_stream(stream.value_or(kNullStream));
    case SynchronizingWait::context:
      return CompletionWait{{}, true};
    case SynchronizingWait::event: {
      if (!event) return {};
      std::lock_guard lock(mutex_);
      const auto found = recorded_on_.find(*event);
      if (found != recorded_on_.end()) return wait_for_stream(found->second);
      return {};
    }
  }
  return {};
}

}  // namespace gilsan::checkers
