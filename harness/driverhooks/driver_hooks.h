// What a driver of gilsan's (the simulated one, or the forwarding one in front of the real driver)
// reports at each point that matters: to the installed observer (driver_observer.h) and to the watchdog's
// board (docs/watchdog.md, "What each writer should write"). One function per point, so that both
// drivers say the same things in the same order.
//
// Each runs on the thread concerned, never under a lock of the driver (but for host_function_pending
// and host_function_not_launched, which write the board only, and the board never blocks), and is a
// cheap no-op for a consumer that is absent (no observer installed, no GILSAN_BOARD).
#pragma once

#include <cuda.h>

#include "harness/driverhooks/driver_observer.h"

namespace gilsan::driverhooks {

// Whether anyone listens: a driver may skip the work of describing a call when nobody does.
bool observed();

// An entry point was entered / is about to return (the thread may block in between).
void api_enter(const GilsanSimApiCall& call);
void api_exit(const GilsanSimApiCall& call, CUresult result);

// On the enqueuing thread, before a host function is handed to the driver to run (not into a
// capture): the board's record of it as pending, which its begin takes off. Before, because the
// driver may start it before the launch returns: a record written after its begin would stay, naming
// a host function that already ran as pending in every later report. A launch that fails takes the
// record off with host_function_not_launched. `implementation` names the driver on the board
// ("simcuda", "libcuda"). Returns whether the board has it (see host_function_begin).
bool host_function_pending(const GilsanSimHostFunction& host_function, const char* implementation);
void host_function_not_launched(const GilsanSimHostFunction& host_function, const char* implementation);

// On the enqueuing thread, once the driver accepted a host function: the observer's
// host_function_enqueued.
void host_function_enqueued(const GilsanSimHostFunction& host_function);

// On the callback thread, around one host function: names the thread its context's callback thread
// and records the host function as the board's outer record (a trampoline may nest its own inside).
// `maybe_pending`: false when host_function_pending returned false for this run, so that the begin
// does not look for a pending record that is not there.
void host_function_begin(const GilsanSimHostFunction& host_function, const char* implementation,
                         bool maybe_pending = true);
void host_function_end(const GilsanSimHostFunction& host_function);

}  // namespace gilsan::driverhooks
