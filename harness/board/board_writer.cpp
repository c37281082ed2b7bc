// The per-thread part of the writer API: role, GIL, driver calls, host functions, locks, progress.
#include "harness/board/board_writer.h"

#include "harness/board/board_writer_state.h"

namespace gilsan::board {
namespace {

using detail::kRelaxed;
using detail::SlotWrite;

void store_lock(LockSlot& record, std::uint64_t lock_id, const char* name, std::uint64_t since_ns,
                LockKind kind = LockKind::Python, int holder_tid = 0, std::uint64_t call_site = 0) {
  record.id.store(lock_id, detail::kPublish);
  record.name.store(name);
  record.since_ns.store(since_ns, detail::kPublish);
  record.kind.store(static_cast<std::uint32_t>(kind), detail::kPublish);
  record.holder_tid.store(holder_tid, detail::kPublish);
  record.call_site.store(call_site, detail::kPublish);
}

void copy_lock(LockSlot& to, const LockSlot& from) {
  to.id.store(from.id.load(kRelaxed), detail::kPublish);
  for (std::size_t i = 0; i < std::size(to.name.words); ++i) {
    to.name.words[i].store(from.name.words[i].load(kRelaxed), detail::kPublish);
  }
  to.name.copied_from.store(from.name.copied_from.load(kRelaxed), kRelaxed);
  to.since_ns.store(from.since_ns.load(kRelaxed), detail::kPublish);
  to.kind.store(from.kind.load(kRelaxed), detail::kPublish);
  to.holder_tid.store(from.holder_tid.load(kRelaxed), detail::kPublish);
  to.call_site.store(from.call_site.load(kRelaxed), detail::kPublish);
}

void count_progress(ThreadSlot* slot, ProgressKind kind) {
  Board* mapped = detail::attached_board();
  if (mapped == nullptr) return;
  auto index = static_cast<std::size_t>(kind);
  if (index >= kProgressKinds) return;
  mapped->header.progress[index].value.fetch_add(1, kRelaxed);
  // A slot has one writer, its thread: no read-modify-write needed.
  if (slot != nullptr) slot->progress[index].store(slot->progress[index].load(kRelaxed) + 1, kRelaxed);
}

}  // namespace

void set_role(Role role, std::uint64_t context) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  slot->role.store(static_cast<std::uint32_t>(role), detail::kPublish);
  slot->role_context.store(context, detail::kPublish);
}

void set_gil_state(GilState state) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  slot->gil_state.store(static_cast<std::uint32_t>(state), detail::kPublish);
  slot->gil_changed_ns.store(detail::now_ns(), detail::kPublish);
}

void enter_call(const char* entry_point, std::uint64_t context, std::uint64_t stream,
                std::uint64_t event) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  GilState gil = detail::probe_gil_state();
  std::uint32_t depth = slot->call_depth.load(kRelaxed);
  SlotWrite write(*slot);
  // Deeper than the slot holds: only counted, so exit_call stays balanced.
  if (depth < kMaxCallDepth) {
    CallSlot& call = slot->calls[depth];
    call.entry_point.store_literal(entry_point);
    call.context.store(context, detail::kPublish);
    call.stream.store(stream, detail::kPublish);
    call.event.store(event, detail::kPublish);
    call.entered_ns.store(detail::now_ns(), detail::kPublish);
    call.gil_at_entry.store(static_cast<std::uint32_t>(gil), detail::kPublish);
  }
  slot->call_depth.store(depth + 1, detail::kPublish);
}

void exit_call() {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  std::uint32_t depth = slot->call_depth.load(kRelaxed);
  if (depth > 0) {
    SlotWrite write(*slot);
    slot->call_depth.store(depth - 1, detail::kPublish);
  }
  count_progress(slot, ProgressKind::DriverCall);
}

void begin_host_function(const HostFunctionInfo& info) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  if (info.maybe_pending) note_host_function_dropped(info.id, info.implementation);  // no longer pending: it runs
  std::uint32_t depth = slot->host_function_depth.load(kRelaxed);
  SlotWrite write(*slot);
  if (depth < kMaxHostFunctionDepth) {
    detail::store_host_function(slot->host_functions[depth], info, detail::now_ns());
  }
  slot->host_function_depth.store(depth + 1, detail::kPublish);
  auto role = static_cast<Role>(slot->role.load(kRelaxed));
  if (depth == 0 && (role == Role::Unknown || role == Role::OtherNative)) {
    slot->role.store(static_cast<std::uint32_t>(Role::DriverCallback), detail::kPublish);
    slot->role_context.store(info.context, detail::kPublish);
  }
}

void end_host_function() {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  std::uint32_t depth = slot->host_function_depth.load(kRelaxed);
  if (depth > 0) {
    SlotWrite write(*slot);
    slot->host_function_depth.store(depth - 1, detail::kPublish);
  }
  count_progress(slot, ProgressKind::HostFunction);
}

void set_activity(const char* text) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  slot->activity.store(text != nullptr ? text : "");
}

void begin_lock_wait(std::uint64_t lock_id, const char* name) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  store_lock(slot->waiting_lock, lock_id, name, detail::now_ns());
  slot->waiting_for_lock.store(1, detail::kPublish);
}

bool begin_native_lock_wait(std::uint64_t lock_id, LockKind kind, int holder_tid, std::uint64_t call_site) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr || slot->waiting_for_lock.load(kRelaxed) != 0) return false;
  SlotWrite write(*slot);
  store_lock(slot->waiting_lock, lock_id, nullptr, detail::now_ns(), kind, holder_tid, call_site);
  slot->waiting_for_lock.store(1, detail::kPublish);
  return true;
}

void begin_notification_wait(std::uint64_t object_id, const char* name) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  store_lock(slot->waiting_lock, object_id, name, detail::now_ns(), LockKind::Notification);
  slot->waiting_for_lock.store(1, detail::kPublish);
}

void note_lock_wait_holder(int holder_tid) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr || slot->waiting_lock.holder_tid.load(kRelaxed) == holder_tid) return;
  SlotWrite write(*slot);
  slot->waiting_lock.holder_tid.store(holder_tid, detail::kPublish);
}

void end_lock_wait() {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  SlotWrite write(*slot);
  slot->waiting_for_lock.store(0, detail::kPublish);
}

void end_lock_wait_for(std::uint64_t lock_id) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr || slot->waiting_for_lock.load(kRelaxed) == 0 || slot->waiting_lock.id.load(kRelaxed) != lock_id)
    return;
  SlotWrite write(*slot);
  slot->waiting_for_lock.store(0, detail::kPublish);
}

void note_lock_acquired(std::uint64_t lock_id, const char* name) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  std::uint32_t count = slot->held_lock_count.load(kRelaxed);
  SlotWrite write(*slot);
  if (count < kMaxHeldLocks) store_lock(slot->held_locks[count], lock_id, name, detail::now_ns());
  slot->held_lock_count.store(count + 1, detail::kPublish);
}

void note_lock_released(std::uint64_t lock_id) {
  ThreadSlot* slot = detail::my_slot();
  if (slot == nullptr) return;
  std::uint32_t count = slot->held_lock_count.load(kRelaxed);
  if (count == 0) return;
  std::uint32_t stored = count < kMaxHeldLocks ? count : static_cast<std::uint32_t>(kMaxHeldLocks);
  SlotWrite write(*slot);
  for (std::uint32_t i = 0; i < stored; ++i) {
    if (slot->held_locks[i].id.load(kRelaxed) == lock_id) {
      if (i + 1 != stored) copy_lock(slot->held_locks[i], slot->held_locks[stored - 1]);
      break;
    }
  }
  // A lock released that was never recorded (beyond the slot's capacity) still lowers the count.
  slot->held_lock_count.store(count - 1, detail::kPublish);
}

void note_progress(ProgressKind kind) { count_progress(detail::my_slot(), kind); }

void expect_device_work(std::uint64_t duration_ns) {
  Board* mapped = detail::board();
  if (mapped == nullptr) return;
  std::uint64_t now = detail::now_ns();
  std::atomic<std::uint64_t>& busy_until = mapped->header.device_busy_until_ns;
  std::uint64_t current = busy_until.load(kRelaxed);
  std::uint64_t wanted = 0;
  do {
    wanted = (current > now ? current : now) + duration_ns;
  } while (!busy_until.compare_exchange_weak(current, wanted, kRelaxed));
  count_progress(detail::my_slot(), ProgressKind::DeviceHeartbeat);
}

void set_interpreter_finalizing() {
  Board* mapped = detail::board();
  if (mapped != nullptr) mapped->header.interpreter_finalizing.store(1, std::memory_order_release);
}

void announce_python_stack_signal(int signal_number) {
  Board* mapped = detail::board();
  if (mapped != nullptr) mapped->header.python_stack_signal.store(signal_number, std::memory_order_release);
}

}  // namespace gilsan::board
