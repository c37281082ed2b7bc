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

// Graph: the block of a graph's allocation node. The node keeps it for every launch of the graph, so freeing
// it (cuMemFree, cuMemFreeAsync, as the driver allows) keeps its backing: a later launch may write it again.
enum class MemoryKind { Device, Pool, Managed, PinnedHost, RegisteredHost, Graph };

// Guarded by SimDriver::mutex.
struct SimMemPool {
  SimDevice* device = nullptr;
  bool is_default = false;                            // a device's own: cuMemPoolDestroy refuses it
  bool destroyed = false;                             // its blocks are released as they come back
  std::multimap<std::size_t, std::uintptr_t> cached;  // freed blocks by size, kept for reuse until trimmed
  std::size_t reserved = 0;                           // bytes the pool holds, in use or cached
  std::size_t used = 0;                               // bytes of its blocks in use
  // cuMemPoolGetAttribute's high-water marks (cuMemPoolSetAttribute resets them, to 0 only).
  std::size_t reserved_high = 0;
  std::size_t used_high = 0;
  // cuMemPoolSetAttribute's settings, as the driver defaults them. The sim reuses a block only once its
  // free has run on its stream, which every reuse policy allows.
  std::uint64_t release_threshold = 0;
  int reuse_follow_event_dependencies = 1;
  int reuse_allow_opportunistic = 1;
  int reuse_allow_internal_dependencies = 1;
};

// All functions require the lock.

// Allocates `bytes` of `kind` (Device, Pool, Managed or PinnedHost) for `context` on its device.
CUresult allocate(MemoryKind kind, std::size_t bytes, SimContext& context, SimMemPool* pool, std::uintptr_t& out);
// Frees an allocation of one of `kinds` that starts at `base`. Device memory is released, and a pool block
// given back to its pool, only once the context's work enqueued before this call has finished, so a late
// copy never touches freed memory.
CUresult free_allocation(std::uintptr_t base, std::initializer_list<MemoryKind> kinds);
// cuMemFreeAsync when the stream reaches it: the block goes back to its pool.
void return_to_pool(std::uintptr_t base);
CUresult trim_pool(SimMemPool& pool, std::size_t keep_bytes);
// cuMemPoolGetAttribute and cuMemPoolSetAttribute: `value` points to an int or a cuuint64_t, as the
// attribute says (cuda.h).
CUresult get_pool_attribute(const SimMemPool& pool, CUmemPool_attribute attribute, void* value);
CUresult set_pool_attribute(SimMemPool& pool, CUmemPool_attribute attribute, const void* value);
// At a stream, event or context synchronize: every pool gives back its freed blocks above its release
// threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), as the driver does then; destroyed pools whose blocks have
// all come back are dropped.
void release_above_thresholds();
// cuMemPoolDestroy: its cached blocks are released now, those still in use as they are freed (the pool
// object stays in SimDriver::destroyed_pools until then).
void destroy_pool(SimMemPool& pool);

CUresult register_host(void* pointer, std::size_t bytes, SimContext& context);
CUresult unregister_host(void* pointer);

// cuPointerGetAttribute of an address inside one of the driver's allocations; CUDA_ERROR_INVALID_VALUE
// for any other address (ordinary host memory, as the driver answers), CUDA_ERROR_NOT_SUPPORTED for an
// attribute the sim does not model.
CUresult pointer_attribute(std::uintptr_t address, CUpointer_attribute attribute, void* data);

// True when [address, address + bytes) lies in one allocation the device can reach.
// cuPointerGetAttributes: each answer as cuPointerGetAttribute gives it, or the attribute's null value where
// that one would fail (an address outside every allocation included); NOT_SUPPORTED for an unmodeled one.
CUresult pointer_attributes(std::uintptr_t address, unsigned count, const CUpointer_attribute* attributes,
                            void** data);
bool device_accessible(std::uintptr_t address, std::size_t bytes);
// True when [address, address + bytes) is ordinary pageable memory the driver knows nothing of: an
// asynchronous copy from there is staged at enqueue, since the caller may reuse it at once.
bool needs_staging(const void* address, std::size_t bytes);
// True when `address` is the start of a live pool allocation.
bool is_pool_allocation(std::uintptr_t address);
bool is_graph_allocation(std::uintptr_t address);
// Gives back a graph allocation's block at once: its node was never added, so no work can use it.
void release_graph_allocation(std::uintptr_t base);

std::size_t memory_in_use(const SimDevice& device);
// Drops every allocation of a destroyed context.
void release_context_memory(const SimContext& context);

}  // namespace gilsan::sim
