// How a host function's record and its texts are written into the board, wherever the record lives
// (a thread's slot, the table of pending host functions), and how the texts' address notes are
// forgotten when the addresses stop meaning what they did.
#include "harness/board/board_writer_state.h"

namespace gilsan::board::detail {

void store_host_function(HostFunctionSlot& record, const HostFunctionInfo& info, std::uint64_t at_ns) {
  record.id.store(info.id, kPublish);
  record.context.store(info.context, kPublish);
  record.stream.store(info.stream, kPublish);
  record.kind.store(static_cast<std::uint32_t>(info.kind), kPublish);
  record.implementation.store_literal(info.implementation);
  // A description is made per host function (a trampoline's "file:line name"): only its absence is
  // the same from one to the next.
  if (info.description == nullptr) {
    record.description.store_literal(nullptr);
  } else {
    record.description.store(info.description);
  }
  record.at_ns.store(at_ns, kPublish);
}

void forget_text_sources(HostFunctionSlot& record) {
  record.implementation.copied_from.store(0, kRelaxed);
  record.description.copied_from.store(0, kRelaxed);
}

void forget_text_sources(ThreadSlot& slot) {
  for (CallSlot& call : slot.calls) call.entry_point.copied_from.store(0, kRelaxed);
  for (HostFunctionSlot& record : slot.host_functions) forget_text_sources(record);
}

}  // namespace gilsan::board::detail
