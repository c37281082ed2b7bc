// How a wrapped host function's record is described to the watchdog's board and to the sanitizer.
#pragma once

#include "checkers/core/handles.h"
#include "checkers/inject/wrapped_host_function.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {

// The board's record of a wrapped host function (its address is the id); its strings live as long as
// the handler.
board::HostFunctionInfo board_info(const WrappedHostFunction& record);

// The Sanitizer's HostFunction for a record, assigned over `out` so that its strings reuse the
// buffers of the previous one: the callback thread's events allocate nothing once warm.
void describe_into(const WrappedHostFunction& record, HostFunction& out);

}  // namespace gilsan::checkers::inject
