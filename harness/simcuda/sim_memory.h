// Memory: device, managed and pinned host allocations, all backed by host memory, and memory pools.
//
// A device pointer is the address of its host backing, so copies and the test kernels simply use it.
// Every pointer an application passes is checked against the allocation map before use.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "harness/simcuda/sim_driver.h"
#include "harness/simcuda/sim_stream.h"

namespace gilsan::sim {

enum class MemoryKind { Device, Pool, Managed, PinnedHost, RegisteredHost };

// Guarded by SimDriver::mutex.
struct SimMemPool {
  SimDevice* device = nullptr;
  std::multimap<std::size_t, std::uintptr_t> cached;  // freed blocks by size, kept for reuse until trimmed
  std::size_t reserved = 0;                           // bytes the pool holds, in use or cached
};

// All functions require the lock.

// Allocates `bytes` of `kind` (Device, Pool, Managed or PinnedHost) for `context` on its device.
CUresult allocate(MemoryKind kind, std::size_t bytes, SimContext& context, SimMemPool* pool, std::uintptr_t& out);
// Frees an allocation of one of `kinds` that starts at `base`. Device memory is released only once the
// context's work enqueued before this call has finished, so a late copy never touches freed memory.
CUresult free_allocation(std::uintptr_t base, std::initializer_list<MemoryKind> kinds);
// cuMemFreeAsync when the stream reaches it: the block goes back to its pool.
void return_to_pool(std::uintptr_t base);
CUresult trim_pool(SimMemPool& pool, std::size_t keep_bytes);

CUresult register_host(void* pointer, std::size_t bytes, SimContext& context);
CUresult unregister_host(void* pointer);

// True when [address, address + bytes) lies in one allocation the device can reach.
bool device_accessible(std::uintptr_t address, std::size_t bytes);
// True when [address, address + bytes) is ordinary pageable memory the driver knows nothing of: an
// asynchronous copy from there is staged at enqueue, since the caller may reuse it at once.
bool needs_staging(const void* address, std::size_t bytes);
// True when `address` is the start of a live pool allocation.
bool is_pool_allocation(std::uintptr_t address);

std::size_t memory_in_use(const SimDevice& device);
// Drops every allocation of a destroyed context.
void release_context_memory(const SimContext& context);

}  // namespace gilsan::sim
