// Entry points the forwarding driver lets through unwatched when nothing would come of watching them.
//
// A query of the driver's state (cuCtxGetCurrent, cuStreamGetCtx, cuDeviceGetAttribute ...) never waits,
// so the watchdog's board cannot find a thread blocked in it, and the sanitizer's source only keeps a
// call that can wait, or one made inside a host function (checkers/sources/sim_source.cpp, matters()).
// Libraries ask them around every launch (the gilsan module asks for the current context at each
// host_launch, CuPy for the device), so describing each one to the board and the observer was a share of
// what the forwarding driver costs (docs/performance.md). A query still reaches both where it could
// matter: inside a host function (a callback that calls CUDA is a finding of its own), and when it
// fails (an error such as a sticky one says something about the context; it is reported after the
// call, which does not wait).
//
// Polls (cuStreamQuery, cuEventQuery) are not quiet: a thread that polls for completion is waiting,
// and each answer it gets is progress the watchdog counts.
#pragma once

#include <span>

namespace gilsan::cudashim {

// Whether `entry_point` (a name without version suffix) is a query that never waits.
bool is_quiet_query(const char* entry_point);

// All of them (for the test that holds the list against the driver table and the profile).
std::span<const char* const> quiet_queries();

}  // namespace gilsan::cudashim
