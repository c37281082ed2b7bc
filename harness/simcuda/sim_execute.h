// Doing the work of a WorkItem: on a stream's executor thread, without the driver lock.
#pragma once

#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_work.h"

namespace gilsan::sim {

// Runs `work` for `stream` (the launch stream, for a graph's steps). Called without the lock.
void execute(const WorkItem& work, SimStream& stream);
// Requires the lock. The work will never run (its context faulted): undo what enqueueing counted.
void discard(const WorkItem& work, SimStream& stream);

}  // namespace gilsan::sim
