// The driver's threads: stream executors and callback threads run as jobs on a pool of threads that,
// once started, never end.
//
// A thread that ended while the process exits would race with whatever runs at exit (LeakSanitizer's
// scan of all threads among them), and a stream or context may be destroyed at any time, so a job that
// finishes hands its thread back to the pool instead, where it waits for the next job. The pool grows
// to the number of jobs running at once.
#pragma once

#include <functional>

namespace gilsan::sim {

// Runs `job` on an idle driver thread, or on a new one. May be called with the driver mutex held (the
// pool's own lock is a leaf). Throws std::system_error when no thread can be started.
void run_on_driver_thread(std::function<void()> job);

}  // namespace gilsan::sim
