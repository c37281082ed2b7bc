#include "harness/simcuda/sim_board_hooks.h"

#include "harness/board/board_writer.h"

namespace gilsan::sim {

void board_executor_started() { board::set_role(board::Role::DeviceExecutor); }

// Counted as device progress, never declared as a duration: the sim cannot know whether work it runs
// will end (work that never ends is exactly a gpu-stall), and the module declares stream.work itself.
void board_work_item_completed() { board::note_progress(board::ProgressKind::DeviceWork); }

}  // namespace gilsan::sim
