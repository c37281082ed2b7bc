// Runtime API vs driver API: the same intent made inside a host function through libcudart and
// through the driver API can answer differently (on the H200's 580 driver, cudaStreamSynchronize of
// the callback's own stream returned cudaErrorNotPermitted where cuStreamSynchronize hangs).
//
// The runtime half runs in case children of its own that dlopen libcudart (libcudart.so.13, then .12,
// or --cudart PATH) and launch their host function with cudaLaunchHostFunc; the driver half is the
// inside matrix's recipe for the same intent. libcudart always talks to libcuda.so.1, so on the
// simulated driver the comparison is skipped unless --cudart names a runtime that reaches it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/probe/case_process.h"
#include "harness/probe/case_protocol.h"
#include "harness/probe/inside_matrix.h"
#include "harness/probe/probe_timeouts.h"

namespace gilsan::probe {

struct RuntimeIntent {
  std::string id;             // e.g. "sync-own-stream"
  std::string description;    // for the markdown
  std::string runtime_call;   // e.g. "cudaStreamSynchronize(own stream)"
  std::string driver_recipe;  // the inside matrix recipe with the same intent
};
const std::vector<RuntimeIntent>& runtime_intents();

// Child side: one intent through the runtime named by `library` ("" = default_runtime_libraries(),
// cudart_library.h). Throws SetupFailure when no runtime loads or it has no device.
void run_runtime_case(const std::string& intent_id, const std::string& library, const ProbeTimeouts& timeouts,
                      const CaseReporter& reporter);

struct RuntimeRow {
  const RuntimeIntent* intent = nullptr;
  std::string runtime_result;  // "cudaErrorNotPermitted (800)", "no return (hang)", or why not measured
  std::string driver_result;
  bool differs = false;
};

struct RuntimeComparison {
  bool ran = false;
  std::string note;  // why it was skipped, or which library answered
  std::vector<RuntimeRow> rows;
};

// The driver half comes from the inside outcomes of each intent's recipe (null when not probed).
RuntimeComparison compare_runtime_and_driver(const std::vector<CaseResult>& runtime_results,
                                             const std::vector<const InsideOutcome*>& driver_outcomes);
// A one-line description of an inside outcome, shared with the markdown.
std::string describe_inside_result(const InsideOutcome& outcome);

}  // namespace gilsan::probe
