#include "checkers/inject/record_pool.h"

#include <atomic>
#include <utility>

#include "checkers/core/per_thread.h"

namespace gilsan::checkers::inject {

struct RecordPool::Block {
  explicit Block(std::size_t size) : slots(size) {
    // Free from the start: a slot is taken when nothing references it.
    for (WrappedHostFunction& slot : slots) {
      slot.pooled = true;
      slot.references.store(0, std::memory_order_relaxed);
    }
  }
  std::vector<WrappedHostFunction> slots;  // one cache line each (WrappedHostFunction is aligned)
  std::size_t next = 0;             // only the owning thread reads and writes it
  std::atomic<bool> owned{false};  // a live thread takes records from it
};

namespace {

std::atomic<std::uint64_t> g_pool_instances{0};

// The calling thread's block. Holding the block (not the pool) keeps it valid for the thread's
// exit, which hands it back even when the pool is already gone (tests make pools one after another).
struct ThreadBlock {
  std::uint64_t pool = 0;
  std::shared_ptr<RecordPool::Block> block;
  void drop() {
    if (block) block->owned.store(false, std::memory_order_release);
    block.reset();
  }
  ThreadBlock() = default;
  ThreadBlock(const ThreadBlock&) = delete;
  ThreadBlock& operator=(const ThreadBlock&) = delete;
  // PerThread hands a thread's block back, when the thread exits, by assigning a fresh ThreadBlock.
  ThreadBlock& operator=(ThreadBlock&& other) noexcept {
    drop();
    pool = other.pool;
    block = std::move(other.block);
    return *this;
  }
  ~ThreadBlock() { drop(); }
};

// A PerThread, not a thread_local: host functions are launched from a thread's last moments too
// (another library's thread_local destructors), after a thread_local would be destroyed (per_thread.h).
ThreadBlock& thread_block() { return checkers::PerThread<ThreadBlock>::get(); }

// Every field back to its default; `references` and `pooled` are the taker's and the pool's.
void clear(WrappedHostFunction& record) {
  record.handler = nullptr;
  record.user_function = nullptr;
  record.user_data = nullptr;
  record.code = nullptr;
  record.context = 0;
  record.stream.reset();
  record.one_shot = true;
  record.self_test = false;
  record.markers.store(kNoMarkers, std::memory_order_relaxed);
}

}  // namespace

RecordPool::RecordPool(std::size_t first_slots, std::size_t most_slots)
    : instance_(++g_pool_instances), first_slots_(first_slots), most_slots_(most_slots) {}

RecordPool::~RecordPool() = default;

std::shared_ptr<RecordPool::Block> RecordPool::claim_block(std::size_t size) {
  std::lock_guard lock(mutex_);
  for (const std::shared_ptr<Block>& block : blocks_) {
    if (block->slots.size() < size) continue;
    bool expected = false;
    if (block->owned.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return block;
  }
  blocks_.push_back(std::make_shared<Block>(size));
  blocks_.back()->owned.store(true, std::memory_order_relaxed);
  return blocks_.back();
}

WrappedHostFunction* RecordPool::take() {
  ThreadBlock& own = thread_block();
  if (own.pool != instance_ || !own.block) {
    own.drop();
    own.block = claim_block(first_slots_);
    own.pool = instance_;
  }
  Block* block = own.block.get();
  WrappedHostFunction* slot = &block->slots[block->next];
  // Acquire: the callback thread's last use of the record happens before it is filled in again.
  if (slot->references.load(std::memory_order_acquire) != 0) {
    const std::size_t larger = block->slots.size() * 2;
    if (larger > most_slots_) {
      // As large as it may grow: this launch's record comes from the heap, and the pending slot is
      // skipped, not waited for.
      block->next = (block->next + 1) % block->slots.size();
      return new WrappedHostFunction();
    }
    own.drop();  // its pending records finish in place; the block serves another thread later
    own.block = claim_block(larger);
    block = own.block.get();
    slot = &block->slots[block->next];
    if (slot->references.load(std::memory_order_acquire) != 0) return new WrappedHostFunction();
  }
  block->next = (block->next + 1) % block->slots.size();
  clear(*slot);
  return slot;
}

std::size_t RecordPool::blocks() const {
  std::lock_guard lock(mutex_);
  return blocks_.size();
}

std::size_t RecordPool::slots() const {
  std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (const std::shared_ptr<Block>& block : blocks_) total += block->slots.size();
  return total;
}

std::size_t RecordPool::in_flight() const {
  std::lock_guard lock(mutex_);
  std::size_t taken = 0;
  for (const std::shared_ptr<Block>& block : blocks_) {
    for (const WrappedHostFunction& slot : block->slots) {
      taken += slot.references.load(std::memory_order_acquire) != 0 ? 1 : 0;
    }
  }
  return taken;
}

}  // namespace gilsan::checkers::inject
