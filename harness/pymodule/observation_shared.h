// What the module's observation files share (observation.cpp: threads, calls, the GIL, host functions;
// observation_graphs.cpp: the callables graphs hold): how the module names itself and its host
// functions to the board and to the sanitizer's hooks. Internal to the module.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "checkers/sources/sanitizer_hooks.h"
#include "harness/board/board_writer.h"
#include "harness/pymodule/host_payload.h"

namespace gilsan::pymodule {

inline constexpr const char* kImplementation = "gilsan";
// Graph host nodes share one pending id on the board (see observe_graph_host_functions_enqueued): the
// address of a private object, far above any payload's serial number.
extern const char kGraphHostFunctionTag;

inline std::uint64_t as_id(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// The sanitizer of the process, when one runs (the scenario child of `gilsan run`): found once by
// name, so the module links nothing of it and works as an ordinary extension without one.
const GilsanSanitizerHooks* sanitizer();

// A host function of ours as the hooks take it; the payload's address is the driver's userData.
GilsanSanitizerHostFunction sanitizer_host_function(const HostPayload* payload, std::uint64_t id, CUstream stream,
                                                    CUcontext context, bool stream_known);
// A graph host node's record: the payload's serial is the id, and any launch stream may run it.
GilsanSanitizerHostFunction graph_node_record(const HostPayload* payload);
// The board's record of a host function of ours.
board::HostFunctionInfo info_of(const HostPayload* payload, std::uint64_t id, CUstream stream, CUcontext context);

}  // namespace gilsan::pymodule
