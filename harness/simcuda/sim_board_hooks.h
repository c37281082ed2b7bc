// The simulated driver's writes to the watchdog's board (docs/watchdog.md, "What each writer should
// write"): what each thread is doing inside the driver, seen from the driver's side. The calls sit
// next to the observer points (sim_api_scope.cpp, sim_callback_thread.cpp, sim_stream.cpp) and are
// cheap no-ops when the process has no board (GILSAN_BOARD unset).
#pragma once

#include <cuda.h>

#include "harness/simcuda/gilsan_sim.h"

namespace gilsan::sim {

// An entry point was entered / is about to return (the thread may block in between).
void board_api_enter(const GilsanSimApiCall& call);
void board_api_exit();

// On the callback thread, around one host function: names the thread the context's callback thread
// and records the host function as the outer record (a trampoline may nest its own inside).
void board_host_function_begin(const GilsanSimHostFunction& host_function);
void board_host_function_end();

// A stream's executor thread started, and finished one work item (device progress).
void board_executor_started();
void board_work_item_completed();

}  // namespace gilsan::sim
