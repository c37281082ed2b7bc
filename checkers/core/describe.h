// The phrases reports are made of, in one place so that text and JSON say the same thing.
#pragma once

#include <string>

#include "checkers/core/report.h"

namespace gilsan::checkers {

// "host function on_done at t.py:3 (python, gilsan) on stream 0x10"
std::string describe(const HostFunction& host_function);
// "thread 4242 (main)"; with the host function it runs when it runs one.
std::string describe(const ThreadInfo& thread);
// "cuStreamSynchronize(stream 0x10)", "cuEventSynchronize(event 0x20, context 0x1)"
std::string describe(const CallInfo& call);
// "CUDA_ERROR_NOT_PERMITTED (800)", or "has not returned"
std::string describe_result(const CallInfo& call);

// One sentence for the edge from -> to: who holds `from`, and how it waits for `to`.
std::string edge_sentence(const PseudoLock& from, const PseudoLock& to,
                          const EdgeEvidence& evidence);

}  // namespace gilsan::checkers
