// Internal to the writer (board_writer.h): this copy's view of the mapped board and the calling
// thread's slot. Everything here is safe to call from a signal handler except where noted.
#pragma once

#include <atomic>
#include <cstdint>

#include "harness/board/board_layout.h"
#include "harness/board/board_writer.h"

namespace gilsan::board::detail {

// Stores of seqlocked data are releases and the reader's loads acquires, instead of the classic
// relaxed accesses between fences: ThreadSanitizer does not model standalone fences, and on x86-64
// these are plain moves anyway. A reader that sees any value of a write in progress therefore also
// sees the odd sequence number written before it, and retries.
inline constexpr std::memory_order kPublish = std::memory_order_release;
// Accesses that need no ordering (a copy's own loads of what it wrote, counters).
inline constexpr std::memory_order kRelaxed = std::memory_order_relaxed;

// The board this copy of the writer mapped, or nullptr (not attached, off, or after a fork).
// Attaches on first use; not for signal handlers (attaching opens and maps a file).
Board* board();
// The board if this copy already attached; never attaches (for signal handlers).
Board* attached_board();

// The calling thread's slot, claimed on first use; nullptr when off or when every slot is taken by
// a live thread. Not for signal handlers (it caches the slot in a thread_local).
ThreadSlot* my_slot();
// Finds or claims the slot of thread `tid` without touching thread-locals (for signal handlers).
ThreadSlot* slot_for_thread(Board& board, int tid);

int current_tid();
std::uint64_t now_ns();

// The GIL state of the calling thread as PyGILState_Check reports it, when a Python runtime is
// initialized in this process; Unknown otherwise.
GilState probe_gil_state();
// The same, for a stack sample's signal handler: Unknown for a thread that has no Python thread state
// (a native thread never attached), and otherwise what the interpreter says, whatever our own writes
// said last. It reads only the interpreter's thread-local and global state (PyGILState_GetThisThreadState,
// PyGILState_Check), so it is safe where the sampler's signal arrives.
GilState sample_gil_state();

// Holds a slot's seqlock odd for the lifetime of the object. Only the slot's owning thread writes
// its state, so no compare-and-swap is needed.
class SlotWrite {
 public:
  explicit SlotWrite(ThreadSlot& slot) : slot_(slot), before_(slot.seq.load(std::memory_order_relaxed)) {
    slot_.seq.store(before_ + 1, std::memory_order_relaxed);
  }
  ~SlotWrite() { slot_.seq.store(before_ + 2, std::memory_order_release); }
  SlotWrite(const SlotWrite&) = delete;
  SlotWrite& operator=(const SlotWrite&) = delete;

 private:
  ThreadSlot& slot_;
  std::uint64_t before_;
};

// A pause between two tries of a lock held for an instant (x86's PAUSE; elsewhere nothing).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Takes a table entry's seqlock by compare-and-swap from even to odd, for tables that several
// threads write. Gives up (owns() false) instead of waiting when another writer holds it.
class EntryWrite {
 public:
  explicit EntryWrite(std::atomic<std::uint64_t>& seq) : seq_(seq) {
    std::uint64_t value = seq_.load(std::memory_order_relaxed);
    if ((value & 1) == 0 &&
        seq_.compare_exchange_strong(value, value + 1, std::memory_order_acquire,
                                     std::memory_order_relaxed)) {
      before_ = value;
      owns_ = true;
    }
  }
  ~EntryWrite() {
    if (owns_) seq_.store(before_ + 2, std::memory_order_release);
  }
  bool owns() const { return owns_; }
  EntryWrite(const EntryWrite&) = delete;
  EntryWrite& operator=(const EntryWrite&) = delete;

 private:
  std::atomic<std::uint64_t>& seq_;
  std::uint64_t before_ = 0;
  bool owns_ = false;
};

// A host function's record with its texts (board_records_written.cpp), in a slot or the pending table.
void store_host_function(HostFunctionSlot& record, const HostFunctionInfo& info, std::uint64_t at_ns);
// Drops the notes of where texts were copied from (PackedText::copied_from): they are copied afresh.
void forget_text_sources(HostFunctionSlot& record);
void forget_text_sources(ThreadSlot& slot);

// Writes the frames of the current signal context into `slot`'s stack area (async-signal-safe
// provided backtrace() was warmed up; see docs/watchdog.md).
// `gil`: the GIL state to store with it (sample_gil_state() for a sample; Unknown for a crash, whose
// interpreter state may be what crashed).
void write_native_stack(ThreadSlot& slot, int signal_number, void* ucontext, std::uint64_t answer, GilState gil);

}  // namespace gilsan::board::detail
