#include "harness/simcuda/sim_board_hooks.h"

#include <cstdint>

#include "harness/board/board_writer.h"

namespace gilsan::sim {
namespace {

std::uint64_t as_id(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

}  // namespace

void board_api_enter(const GilsanSimApiCall& call) {
  board::enter_call(call.entry_point, as_id(call.context), as_id(call.stream), as_id(call.event));
}

void board_api_exit() { board::exit_call(); }

void board_host_function_begin(const GilsanSimHostFunction& host_function) {
  // A pooled driver thread may have been a stream executor before: it is a callback thread now.
  board::set_role(board::Role::DriverCallback, as_id(host_function.context));
  board::HostFunctionInfo info;
  info.id = host_function.id;
  info.context = as_id(host_function.context);
  info.stream = as_id(host_function.stream);
  // The driver cannot tell what the function is; a trampoline's nested record says (kind, description).
  info.kind = board::HostFunctionKind::Unknown;
  info.implementation = "simcuda";
  board::begin_host_function(info);
}

void board_host_function_end() { board::end_host_function(); }

void board_executor_started() { board::set_role(board::Role::DeviceExecutor); }

// Counted as device progress, never declared as a duration: the sim cannot know whether work it runs
// will end (work that never ends is exactly a gpu-stall), and the module declares stream.work itself.
void board_work_item_completed() { board::note_progress(board::ProgressKind::DeviceWork); }

}  // namespace gilsan::sim
