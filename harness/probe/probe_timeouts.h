// How long the probe waits for each kind of event before it draws a conclusion.
//
// Every conclusion the probe draws from waiting ("held back", "hangs", "serialized") is a timeout, so
// the timeouts are the probe's precision: too short and a slow call reads as held back, too long and
// a full probe takes minutes. The defaults differ per driver: the simulated driver answers in
// microseconds, a real one may JIT-compile PTX or create a context for a second or more.
// docs/probe.md lists the values and the reasoning.
#pragma once

#include <chrono>
#include <string>

#include "harness/driver/driver_selection.h"

namespace gilsan::probe {

using Milliseconds = std::chrono::milliseconds;

struct ProbeTimeouts {
  // Outside matrix: how long a call made while a host function is held gets to return before it
  // counts as held back by the driver. Stretched per case to 10x the call's unobstructed duration.
  Milliseconds outside_hold{500};
  // Inside matrix: how long a call made inside a host function gets to return before it counts as
  // a hang. Stretched per case to 10x the call's unobstructed duration.
  Milliseconds inside_hang{2000};
  // Topology: how long one cuLaunchHostFunc enqueue may take before the queue counts as blocked, and
  // how long a second host function gets to start while the first is held.
  Milliseconds enqueue_stall{500};
  Milliseconds concurrency_window{500};
  // Device work put on S1 before the host function when a recipe must enqueue something after it:
  // it only has to outlast two enqueues, so that no host function runs while they are made.
  Milliseconds gate_work{200};
  // A whole case child, from start to exit, whatever it is doing: the last line of defence.
  Milliseconds case_limit{30000};
};

// The defaults for a driver, multiplied by `scale`. The members' initial values are the simulated
// driver's: it answers in microseconds, so they only have to outlast scheduling delays on a loaded
// machine (a CI runner with two cores and other builds running).
ProbeTimeouts default_timeouts(DriverKind driver, double scale);

// The factor that stretches every timeout: $GILSAN_PROBE_TIME_SCALE (a positive number) when set,
// times 20 when the probe runs under Valgrind. Throws std::invalid_argument for a malformed value.
double time_scale_from_environment();

inline constexpr const char* kTimeScaleVariable = "GILSAN_PROBE_TIME_SCALE";

// A per-case wait stretched to `factor` times a measured unobstructed duration, never below `floor`.
Milliseconds stretched(Milliseconds floor, std::chrono::microseconds unobstructed, int factor = 10);

std::string describe(const ProbeTimeouts& timeouts);

}  // namespace gilsan::probe
