// What a synchronizing call waits for, from the one table (synchronizing_calls.inc). The sanitizer's
// sources turn it into the core's CompletionWait (completion_waits.h); the watchdog into wait-for
// edges (harness/watchdog/wait_graph_builder.cpp). Both also take the rule for the NULL and legacy
// streams from here.
//
// Header-only, standard library only, constexpr: the watchdog includes it without linking the
// sanitizer. Namespace gilsan, like the deadlock taxonomy: neither side owns it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gilsan {

enum class CudaApi { driver, runtime };

enum class SynchronizingWait {
  stream,   // the stream argument drains
  event,    // the stream the event was last recorded on drains
  context,  // every stream of the calling context drains
};

struct SynchronizingCall {
  std::string_view entry_point;  // "cuStreamSynchronize", without suffixes
  CudaApi api;
  SynchronizingWait waits_for;
};

inline constexpr std::array kSynchronizingCalls = {
#define GILSAN_SYNCHRONIZING_CALL(entry_point, api, waits_for) \
  SynchronizingCall{#entry_point, CudaApi::api, SynchronizingWait::waits_for},
#include "checkers/core/synchronizing_calls.inc"
#undef GILSAN_SYNCHRONIZING_CALL
};

// What `entry_point` (without suffixes) waits for; nullopt for every call not in the table, which
// waits for no device work of its own accord.
constexpr std::optional<SynchronizingWait> synchronizing_wait(std::string_view entry_point) {
  for (const SynchronizingCall& call : kSynchronizingCalls) {
    if (call.entry_point == entry_point) return call.waits_for;
  }
  return std::nullopt;
}

// A wait for the NULL (0) or legacy (CU_STREAM_LEGACY, 0x1) stream waits for every blocking stream of
// its context too: work on the legacy stream is ordered after everything already enqueued there (the
// simulated driver models the same barrier, harness/simcuda/sim_stream.cpp). Both sides take it as a
// wait for the whole context, which over-approximates non-blocking streams. The per-thread stream
// (CU_STREAM_PER_THREAD, 0x2, or NULL in a _ptsz/_ptds call once mapped to 0x2) is an ordinary stream.
constexpr bool waits_for_whole_context(std::uint64_t stream) { return stream == 0 || stream == 0x1; }

}  // namespace gilsan
