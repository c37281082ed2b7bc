// Deferred release: how a driver thread gets rid of Python references without taking the GIL.
//
// A CUDA user object's destructor (a graph that held a host function was destroyed) and the release
// marker behind a native host function run on driver threads. Taking the GIL there can deadlock the
// driver, so they queue the payload and ask the interpreter to release it (Py_AddPendingCall: the main
// thread runs it at its next eval-breaker check). Every module entry point also empties the queue, so a
// release is never stuck behind a full pending-call table; the atexit hook empties it one last time.
#pragma once

#include "harness/pymodule/host_payload.h"

namespace gilsan::pymodule {

// Any thread, GIL held or not; never takes the GIL. Once Python is gone the payload is leaked on purpose.
void release_later(HostPayload* payload);

// GIL held: releases every payload queued so far.
void run_deferred_releases();

}  // namespace gilsan::pymodule
