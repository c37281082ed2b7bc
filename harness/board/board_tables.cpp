// The process-wide tables several threads write: pending host functions and event records. Each
// entry has its own seqlock taken by compare-and-swap; a writer that finds an entry busy moves on
// (or, at worst, drops its write and counts it in lost_writes) rather than wait.
#include "harness/board/board_writer.h"
#include "harness/board/board_writer_state.h"

#include <sched.h>

namespace gilsan::board {
namespace {

using detail::kRelaxed;

std::size_t start_index(std::uint64_t key, std::size_t table_size) {
  // Fibonacci hashing: handles and ids are often multiples of 8 or 16.
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 40) % table_size;
}

bool same_text(const PackedText<4>& stored, const char* text) {
  // Placed with store_literal from this very name: no need to compare the words.
  if (text != nullptr && stored.copied_from.load(kRelaxed) == reinterpret_cast<std::uintptr_t>(text)) return true;
  PackedText<4> wanted;
  wanted.store(text);
  for (std::size_t i = 0; i < std::size(wanted.words); ++i) {
    if (stored.words[i].load(kRelaxed) != wanted.words[i].load(kRelaxed)) return false;
  }
  return true;
}

}  // namespace

// A pending host function is placed within this many slots of its id's start index, and looked for
// only there. Without the bound, a queue deeper than the table (a loop enqueuing thousands behind a
// held host function) made every enqueue scan the full table before counting itself lost, and every
// start scan it again for an id that was never placed: thousands of instructions per host function.
constexpr std::size_t kPendingProbes = 32;
static_assert(kPendingProbes <= kMaxPendingHostFunctions);

// A thread whose last note found no free entry in its window checks first whether the table is full
// (placed minus taken, two counters on lines of their own) and, if it is, counts the note lost
// without probing: behind a held host function, a queue deeper than the table made every further
// enqueue probe kPendingProbes entries, all taken, and those probes were most of what the forwarding
// driver added to a launch (docs/performance.md). A table that is not full is probed as before, so no
// note that had room is lost; and a thread whose notes are placed never reads the takers' counter.
// Initial-exec: see t_slot (board_attach.cpp).
[[gnu::tls_model("initial-exec")]] thread_local bool t_last_note_missed = false;

bool table_full(const Board& board) {
  const std::uint64_t taken = board.header.pending_taken.value.load(std::memory_order_acquire);
  const std::uint64_t placed = board.header.pending_placed.value.load(std::memory_order_acquire);
  return placed >= taken && placed - taken >= kMaxPendingHostFunctions;
}

bool note_host_function_enqueued(const HostFunctionInfo& info) {
  Board* mapped = detail::board();
  if (mapped == nullptr) return false;
  if (t_last_note_missed && table_full(*mapped)) {
    mapped->header.lost_writes.value.fetch_add(1, kRelaxed);
    return false;
  }
  std::uint64_t now = detail::now_ns();
  std::size_t start = start_index(info.id, kMaxPendingHostFunctions);
  for (std::size_t probe = 0; probe < kPendingProbes; ++probe) {
    PendingHostFunctionSlot& entry = mapped->pending[(start + probe) % kMaxPendingHostFunctions];
    if (entry.used.load(std::memory_order_acquire) != 0) continue;
    detail::EntryWrite write(entry.seq);
    if (!write.owns() || entry.used.load(kRelaxed) != 0) continue;
    detail::store_host_function(entry.info, info, now);
    // Counted before it is visible, so that a take of it can never be counted first.
    mapped->header.pending_placed.value.fetch_add(1, std::memory_order_release);
    entry.used.store(1, detail::kPublish);
    t_last_note_missed = false;
    return true;
  }
  mapped->header.lost_writes.value.fetch_add(1, kRelaxed);
  t_last_note_missed = true;
  return false;
}

namespace {

// Frees `entry` if it still holds (id, implementation). Another writer can hold the entry's lock for
// an instant even though the entry is taken: a note that saw it free before this one was placed locks
// it to look again, then moves on. Passing over a busy entry would leave this one pending for good (a
// host function that ran, named as pending by every later hang report), so the lock is tried again:
// spinning a little, then yielding (the holder may have been preempted; it never blocks while it
// holds the lock), for at most kBusyEntryYields turns (a holder that died with it does not hang us).
constexpr int kBusyEntrySpins = 64;
constexpr int kBusyEntryYields = 10000;

bool take_off(PendingHostFunctionSlot& entry, std::uint64_t id, const char* implementation) {
  for (int attempt = 0; attempt < kBusyEntrySpins + kBusyEntryYields; ++attempt) {
    detail::EntryWrite write(entry.seq);
    if (!write.owns()) {
      if (attempt < kBusyEntrySpins) {
        detail::cpu_relax();
      } else {
        ::sched_yield();
      }
      continue;
    }
    if (entry.used.load(kRelaxed) == 0 || entry.info.id.load(kRelaxed) != id ||
        !same_text(entry.info.implementation, implementation))
      return false;
    entry.used.store(0, detail::kPublish);
    return true;
  }
  return false;
}

}  // namespace

void note_host_function_dropped(std::uint64_t id, const char* implementation) {
  Board* mapped = detail::board();
  if (mapped == nullptr) return;
  std::size_t start = start_index(id, kMaxPendingHostFunctions);
  for (std::size_t probe = 0; probe < kPendingProbes; ++probe) {
    PendingHostFunctionSlot& entry = mapped->pending[(start + probe) % kMaxPendingHostFunctions];
    if (entry.used.load(std::memory_order_acquire) == 0 || entry.info.id.load(kRelaxed) != id) continue;
    if (take_off(entry, id, implementation)) {
      mapped->header.pending_taken.value.fetch_add(1, std::memory_order_release);
      return;
    }
  }
}

void note_event_recorded(std::uint64_t event, std::uint64_t stream, std::uint64_t context) {
  Board* mapped = detail::board();
  if (mapped == nullptr || event == 0) return;
  constexpr std::size_t kProbes = 16;
  std::size_t start = start_index(event, kMaxEventRecords);
  EventRecordSlot* target = nullptr;
  EventRecordSlot* oldest = nullptr;
  for (std::size_t probe = 0; probe < kProbes && target == nullptr; ++probe) {
    EventRecordSlot& entry = mapped->events[(start + probe) % kMaxEventRecords];
    std::uint64_t current = entry.event.load(kRelaxed);
    if (current == event || current == 0) target = &entry;
    else if (oldest == nullptr || entry.recorded_ns.load(kRelaxed) < oldest->recorded_ns.load(kRelaxed)) {
      oldest = &entry;
    }
  }
  // The window is full of other events: the oldest record is the least likely to be waited on.
  if (target == nullptr) target = oldest;
  detail::EntryWrite write(target->seq);
  if (!write.owns()) {
    mapped->header.lost_writes.value.fetch_add(1, kRelaxed);
    return;
  }
  target->event.store(event, detail::kPublish);
  target->stream.store(stream, detail::kPublish);
  target->context.store(context, detail::kPublish);
  target->recorded_ns.store(detail::now_ns(), detail::kPublish);
}

}  // namespace gilsan::board
