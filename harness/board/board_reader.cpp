#include "harness/board/board_reader.h"

#include <sched.h>

#include <algorithm>

namespace gilsan::board {
namespace {

// Loads of seqlocked data are acquires (see board_writer_state.h); the rest need no ordering but
// share the constant for simplicity.
constexpr auto kAcquire = std::memory_order_acquire;
constexpr int kReadTries = 4096;

// Runs `copy` until it saw the same even sequence number before and after. `copy` must only load.
template <typename Copy>
bool read_consistent(const std::atomic<std::uint64_t>& seq, Copy&& copy) {
  for (int attempt = 0; attempt < kReadTries; ++attempt) {
    std::uint64_t before = seq.load(std::memory_order_acquire);
    if ((before & 1) == 0) {
      copy();  // acquire loads: the load of seq below cannot move before them
      if (seq.load(std::memory_order_relaxed) == before) return true;
    }
    if (attempt % 64 == 63) ::sched_yield();
  }
  return false;
}

CallRecord copy_call(const CallSlot& slot) {
  CallRecord call;
  call.entry_point = slot.entry_point.load();
  call.context = slot.context.load(kAcquire);
  call.stream = slot.stream.load(kAcquire);
  call.event = slot.event.load(kAcquire);
  call.entered_ns = slot.entered_ns.load(kAcquire);
  call.gil_at_entry = static_cast<GilState>(slot.gil_at_entry.load(kAcquire));
  return call;
}

HostFunctionRecord copy_host_function(const HostFunctionSlot& slot) {
  HostFunctionRecord record;
  record.id = slot.id.load(kAcquire);
  record.context = slot.context.load(kAcquire);
  record.stream = slot.stream.load(kAcquire);
  record.kind = static_cast<HostFunctionKind>(slot.kind.load(kAcquire));
  record.implementation = slot.implementation.load();
  record.description = slot.description.load();
  record.at_ns = slot.at_ns.load(kAcquire);
  return record;
}

LockRecord copy_lock(const LockSlot& slot) {
  return LockRecord{slot.id.load(kAcquire),         slot.name.load(),
                    slot.since_ns.load(kAcquire),   static_cast<LockKind>(slot.kind.load(kAcquire)),
                    slot.holder_tid.load(kAcquire), slot.call_site.load(kAcquire)};
}

std::optional<ThreadRecord> read_slot(const ThreadSlot& slot) {
  int tid = slot.tid.load(std::memory_order_acquire);
  if (tid == 0) return std::nullopt;
  ThreadRecord record;
  bool state_ok = read_consistent(slot.seq, [&] {
    record.tid = tid;
    record.pthread_id = slot.pthread_id.load(kAcquire);
    record.role = static_cast<Role>(slot.role.load(kAcquire));
    record.role_context = slot.role_context.load(kAcquire);
    record.gil_state = static_cast<GilState>(slot.gil_state.load(kAcquire));
    record.gil_changed_ns = slot.gil_changed_ns.load(kAcquire);
    auto calls = std::min<std::size_t>(slot.call_depth.load(kAcquire), kMaxCallDepth);
    record.calls.clear();
    for (std::size_t i = 0; i < calls; ++i) record.calls.push_back(copy_call(slot.calls[i]));
    auto functions = std::min<std::size_t>(slot.host_function_depth.load(kAcquire), kMaxHostFunctionDepth);
    record.host_functions.clear();
    for (std::size_t i = 0; i < functions; ++i) {
      record.host_functions.push_back(copy_host_function(slot.host_functions[i]));
    }
    record.waiting_lock.reset();
    if (slot.waiting_for_lock.load(kAcquire) != 0) record.waiting_lock = copy_lock(slot.waiting_lock);
    auto held = std::min<std::size_t>(slot.held_lock_count.load(kAcquire), kMaxHeldLocks);
    record.held_locks.clear();
    for (std::size_t i = 0; i < held; ++i) record.held_locks.push_back(copy_lock(slot.held_locks[i]));
    record.activity = slot.activity.load();
  });
  bool stack_ok = read_consistent(slot.stack_seq, [&] {
    auto count = std::min<std::size_t>(slot.frame_count.load(kAcquire), kMaxFrames);
    record.frames.clear();
    for (std::size_t i = 0; i < count; ++i) record.frames.push_back(slot.frames[i].load(kAcquire));
    record.stack_signal = slot.stack_signal.load(kAcquire);
    record.stack_answer = slot.stack_answer.load(kAcquire);
    record.gil_at_stack = static_cast<GilState>(slot.stack_gil.load(kAcquire));
  });
  for (std::size_t i = 0; i < kProgressKinds; ++i) record.progress[i] = slot.progress[i].load(kAcquire);
  record.consistent = state_ok && stack_ok;
  return record;
}

}  // namespace

ProgressCounters BoardReader::progress() const {
  ProgressCounters counters{};
  for (std::size_t i = 0; i < kProgressKinds; ++i) counters[i] = board_.header.progress[i].value.load(kAcquire);
  return counters;
}

std::uint64_t BoardReader::device_busy_until_ns() const {
  return board_.header.device_busy_until_ns.load(kAcquire);
}

int BoardReader::stack_sample_signal() const {
  return board_.header.stack_sample_signal.load(std::memory_order_acquire);
}

int BoardReader::python_stack_signal() const {
  return board_.header.python_stack_signal.load(std::memory_order_acquire);
}

std::optional<CrashRecord> BoardReader::crash() const {
  int signal_number = board_.header.crash_signal.load(std::memory_order_acquire);
  if (signal_number == 0) return std::nullopt;
  return CrashRecord{signal_number, board_.header.crash_tid.load(kAcquire),
                     board_.header.crash_address.load(kAcquire)};
}

std::vector<ThreadRecord> BoardReader::threads() const {
  std::vector<ThreadRecord> records;
  for (const ThreadSlot& slot : board_.slots) {
    if (auto record = read_slot(slot)) records.push_back(std::move(*record));
  }
  return records;
}

std::optional<ThreadRecord> BoardReader::thread(int tid) const {
  for (const ThreadSlot& slot : board_.slots) {
    if (slot.tid.load(std::memory_order_acquire) == tid) return read_slot(slot);
  }
  return std::nullopt;
}

std::vector<HostFunctionRecord> BoardReader::pending_host_functions() const {
  std::vector<HostFunctionRecord> records;
  for (const PendingHostFunctionSlot& entry : board_.pending) {
    bool used = false;
    HostFunctionRecord record;
    bool ok = read_consistent(entry.seq, [&] {
      used = entry.used.load(kAcquire) != 0;
      if (used) record = copy_host_function(entry.info);
    });
    if (ok && used) records.push_back(std::move(record));
  }
  std::sort(records.begin(), records.end(),
            [](const HostFunctionRecord& a, const HostFunctionRecord& b) { return a.at_ns < b.at_ns; });
  return records;
}

std::vector<EventRecord> BoardReader::events() const {
  std::vector<EventRecord> records;
  for (const EventRecordSlot& entry : board_.events) {
    EventRecord record;
    bool ok = read_consistent(entry.seq, [&] {
      record = EventRecord{entry.event.load(kAcquire), entry.stream.load(kAcquire),
                           entry.context.load(kAcquire), entry.recorded_ns.load(kAcquire)};
    });
    if (ok && record.event != 0) records.push_back(record);
  }
  return records;
}

BoardContents BoardReader::read() const {
  BoardContents contents;
  contents.owner_pid = board_.header.owner_pid.load(kAcquire);
  contents.stack_sample_signal = stack_sample_signal();
  contents.python_stack_signal = python_stack_signal();
  contents.progress = progress();
  contents.device_busy_until_ns = device_busy_until_ns();
  contents.interpreter_finalizing = board_.header.interpreter_finalizing.load(kAcquire) != 0;
  contents.lost_writes = board_.header.lost_writes.value.load(kAcquire);
  contents.crash = crash();
  contents.threads = threads();
  contents.pending_host_functions = pending_host_functions();
  contents.events = events();
  return contents;
}

std::uint64_t BoardReader::begin_stack_request() {
  return board_.header.stack_request.fetch_add(1, std::memory_order_acq_rel) + 1;
}

void BoardReader::acknowledge_crash() {
  board_.header.crash_acknowledged.store(1, std::memory_order_release);
}

}  // namespace gilsan::board
