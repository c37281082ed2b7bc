// Topology: which driver threads run host functions, what runs at the same time, and when enqueueing
// host functions itself starts to block. Three cases, each a child process of its own:
//  - threads: the thread ids that run host functions of S1 and S2 in the primary context, of a stream
//    in a second context on the same device and, with two devices, in device 1's primary context;
//    then, while a host function is held on S1, whether host functions of S2, of the second context
//    and of device 1 run meanwhile;
//  - callback-context: what cuCtxGetCurrent answers on the callback thread;
//  - enqueue-depth: while a host function is held on S1, cuLaunchHostFunc on S1 one at a time up to
//    a limit; the first enqueue that does not return within the stall timeout gives the depth.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/probe/case_process.h"
#include "harness/probe/case_protocol.h"
#include "harness/probe/probe_fixture.h"
#include "harness/probe/probe_timeouts.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

inline constexpr const char* kTopologyThreads = "threads";
inline constexpr const char* kTopologyCallbackContext = "callback-context";
inline constexpr const char* kTopologyEnqueueDepth = "enqueue-depth";
inline constexpr int kDefaultEnqueueLimit = 4096;

// Child side. `which` is one of the three names above. Throws SetupFailure.
void run_topology_case(const std::string& which, const ProbeFixture& fixture, const ProbeTimeouts& timeouts,
                       int enqueue_limit, const CaseReporter& reporter);

struct TopologyEvidence {
  // threads
  std::vector<std::pair<std::string, long>> callback_threads;  // ("primary context, S1", tid), in order
  int devices = 0;
  std::optional<bool> streams_concurrent;    // S2's host function ran while S1's was held
  std::optional<bool> contexts_concurrent;   // same, for a second context on the same device
  std::optional<bool> devices_concurrent;    // same, for device 1 (nullopt with one device)
  std::optional<CallbackThreadScope> callback_thread;
  std::string callback_thread_note;          // how the scope was told, or why it could not be
  std::string threads_problem;
  // callback-context
  std::string current_context_on_callback;   // e.g. "CUDA_ERROR_NOT_PERMITTED"
  std::string callback_context_problem;
  // enqueue-depth
  int enqueue_limit = 0;
  bool enqueue_measured = false;
  std::optional<int> enqueue_blocks_at_depth;
  std::string enqueue_note;
  std::string enqueue_problem;
};

// Reads the three cases' results (any may be missing: an empty label means it did not run).
TopologyEvidence interpret_topology_cases(const CaseResult& threads, const CaseResult& callback_context,
                                          const CaseResult& enqueue_depth);

}  // namespace gilsan::probe
