// Builds the WaitForGraph of a snapshot from its ThreadFacts: first what each thread waits for (the
// GIL, a stream, an event, a context, the driver's host-function lock, a lock), then, for every
// resource something waits for, what provides or holds it (the thread running the host function a
// stream waits for, the callback thread a pending host function needs, a lock's holder...).
#pragma once

#include <functional>
#include <string_view>

#include "harness/watchdog/snapshot.h"
#include "harness/watchdog/thread_facts.h"
#include "harness/watchdog/wait_for_graph.h"

namespace gilsan::watchdog {

// Answers, from the driver profile: does a call to this entry point, made on another thread, block
// while a host function of its context runs? (DriverProfile::outside(name) == Blocks.) Names come
// normalized, without _v2/_ptsz suffixes; unknown names should answer false.
using DriverCallBlocksPredicate = std::function<bool(std::string_view entry_point)>;

// The evidence of an edge the profile did not predict (a GIL holder inside a call the profile says
// returns, while a host function of its context waits for the GIL), followed by the entry point.
inline constexpr std::string_view kAgainstTheProfile = "against the driver profile: ";
// The evidence of an edge from a thread waiting for a notification to a thread that may give it.
inline constexpr std::string_view kNotificationWait = "board: notification wait; notifier: a blocked Python thread";
// The same from a thread waiting on a native condition variable. Weaker: a native thread the board does
// not see (a library's I/O thread) often signals one, so a cycle that closes through such a guess is
// reported only after the unexplained-hang deferral (docs/watchdog.md).
inline constexpr std::string_view kNativeConditionWait =
    "board: native condition wait; notifier: a blocked Python thread, unless a native thread signals it";
inline bool is_notification_evidence(std::string_view evidence) {
  return evidence == kNotificationWait || evidence == kNativeConditionWait;
}

WaitForGraph build_wait_for_graph(const Snapshot& snapshot, const SnapshotFacts& facts,
                                  const DriverCallBlocksPredicate& blocks_while_host_function_runs);

// "host function #3 (python, gilsan, scenario.py:14 cb)"
std::string describe_host_function(const board::HostFunctionRecord& record);

}  // namespace gilsan::watchdog
