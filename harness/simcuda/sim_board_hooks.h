// The simulated driver's own writes to the watchdog's board, beside what every gilsan driver reports
// (harness/driverhooks): its stream executors, seen from the driver's side. Cheap no-ops when the
// process has no board (GILSAN_BOARD unset).
#pragma once

namespace gilsan::sim {

// A stream's executor thread started, and finished one work item (device progress).
void board_executor_started();
void board_work_item_completed();

}  // namespace gilsan::sim
