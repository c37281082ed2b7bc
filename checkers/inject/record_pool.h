// RecordPool: where the records of one-shot host functions come from, so that a launch does not
// call the allocator and the driver's callback thread does not free.
//
// Why: a record is made on the launching thread and finished on the driver's callback thread, a
// producer/consumer pattern that glibc's allocator serves through its shared arena, moving its lock
// and chunk headers between the two cores on every host function (and a record aligned to a cache
// line would go through memalign, which skips the per-thread cache altogether).
//
// How: each launching thread takes records, in order, from a block of slots of its own. The callback
// thread only drops the record's last reference (references reaching 0 is "finished"; the slot's
// line is the one it already read). A slot is taken again a lap later, once finished. When the next
// slot is still pending (more host functions are queued than the block has slots, or one never
// ran), the thread moves to a block twice as large, up to most_slots; past that, the record comes
// from the heap. A thread's block goes back to the pool when the thread exits or moves on, for the
// next thread that needs one at least as large. Blocks live as long as the pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "checkers/inject/wrapped_host_function.h"

namespace gilsan::checkers::inject {

class RecordPool {
 public:
  static constexpr std::size_t kFirstSlots = 256;
  static constexpr std::size_t kMostSlots = 65536;  // 4 MiB of records queued from one thread

  explicit RecordPool(std::size_t first_slots = kFirstSlots, std::size_t most_slots = kMostSlots);
  ~RecordPool();
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  // A record with every field at its default and `references` to set by the caller: a finished slot
  // of the calling thread's block, or a heap record (WrappedHostFunction::pooled false).
  WrappedHostFunction* take();

  // How many blocks exist, and their slots in all.
  std::size_t blocks() const;
  std::size_t slots() const;
  // Pooled records taken and not finished yet, over every block (a host function that never ran
  // keeps its slot): for tests and diagnostics, not for the launch path.
  std::size_t in_flight() const;

  struct Block;

 private:
  // An unowned block of at least `size` slots, else a new one of `size`; owned by the caller now.
  std::shared_ptr<Block> claim_block(std::size_t size);

  const std::uint64_t instance_;  // tells this pool's blocks in a thread's cache from an earlier pool's
  const std::size_t first_slots_;
  const std::size_t most_slots_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Block>> blocks_;
};

}  // namespace gilsan::checkers::inject
