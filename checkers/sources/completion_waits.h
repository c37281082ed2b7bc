// What a driver call waits for (the core's CompletionWait), from the call's name and arguments.
//
// The core never guesses from names; every source asks this class so that the sim source and the
// injection library agree, and the calls and what each waits for are the one table the watchdog reads
// too (synchronizing_calls.inc):
//   cuStreamSynchronize(S)  waits for S; for the NULL or legacy stream, for the whole context (the
//                           legacy stream waits for every blocking stream; non-blocking streams are
//                           over-approximated);
//   cuEventSynchronize(E)   waits for the stream E was last recorded on (nothing when that is
//                           unknown, e.g. an event recorded before the source started);
//   cuCtxSynchronize        waits for the whole context;
// and the runtime's cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize alike.
// Synchronous copies and memsets, which also wait for the legacy stream, are not listed: see
// docs/sanitizer.md, "Event sources".
#pragma once

#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "checkers/core/events.h"

namespace gilsan::checkers {

// The special stream handles of cuda.h, as integers (synchronizing_calls.h: waits_for_whole_context).
inline constexpr Handle kNullStream = 0;
inline constexpr Handle kLegacyStream = 0x1;     // CU_STREAM_LEGACY
inline constexpr Handle kPerThreadStream = 0x2;  // CU_STREAM_PER_THREAD

// Thread-safe: sources record events from any thread.
class CompletionWaits {
 public:
  // cuEventRecord(E, S) succeeded: a later wait on E waits for S.
  void event_recorded(Handle event, Handle stream);
  void event_destroyed(Handle event);

  // `entry_point` without suffixes (entry_point_names.h); `stream` with the per-thread NULL
  // already mapped to kPerThreadStream by the caller.
  CompletionWait waits_of(std::string_view entry_point, std::optional<Handle> stream,
                          std::optional<Handle> event) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<Handle, Handle> recorded_on_;  // event -> stream
};

}  // namespace gilsan::checkers
