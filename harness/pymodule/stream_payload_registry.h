// The stream host functions the driver holds, by context.
//
// After a sticky error (an illegal address, a failed launch) a context is dead and the driver never
// calls its pending host functions, so nothing would ever release what they own. The registry lets the
// module release them itself, exactly once: whoever claims a payload first (the trampoline about to run
// it, or the sweep after a sticky error) owns its release.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "harness/pymodule/host_payload.h"

namespace gilsan::pymodule {

// Before the enqueue; payload->context says which context it belongs to.
void register_stream_payload(HostPayload* payload);

// Claims the payload for the caller (the trampoline, or the launcher after a failed enqueue).
// False: a sweep abandoned it first and already dropped its Python references.
bool claim_stream_payload(HostPayload* payload);

// GIL held: the driver will never run the registered host functions of `context`. Drops their Python
// references and returns how many. Their memory stays, for a trampoline the driver might still call.
std::size_t abandon_stream_payloads(CUcontext context);

// True for the CUresults after which a context is unusable and runs no more host functions.
bool is_sticky_error(CUresult result);

}  // namespace gilsan::pymodule
