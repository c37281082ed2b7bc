#include "harness/simcuda/sim_memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "harness/simcuda/sim_context.h"

namespace gilsan::sim {
namespace {

// Real allocations are at least this aligned, and sizes are rounded to it.
constexpr std::size_t kAlignment = 256;

struct Allocation {
  std::size_t size = 0;       // as requested: the range an application may touch
  std::size_t footprint = 0;  // rounded up to the alignment: what the device accounts for
  MemoryKind kind = MemoryKind::Device;
  SimDevice* device = nullptr;
  const SimContext* context = nullptr;  // null for pool blocks, which belong to their device
  SimMemPool* pool = nullptr;
  const SimContext* ordered_in = nullptr;  // a pool block's: the context of the stream it was allocated on
};

// Host memory whose release waits for work enqueued before it was freed; a pool block (pool set) goes
// back to its pool then instead.
struct DeferredRelease {
  void* storage = nullptr;
  std::vector<Dependency> after;
  SimMemPool* pool = nullptr;
  std::size_t footprint = 0;
};

struct MemoryState {
  std::map<std::uintptr_t, Allocation> live;  // by base address
  std::vector<DeferredRelease> deferred;
};

MemoryState& state() {
  static auto* memory = new MemoryState();  // leaked with the rest of the driver's state
  return *memory;
}

bool owns_storage(MemoryKind kind) { return kind != MemoryKind::RegisteredHost; }
bool counts_on_device(MemoryKind kind) {
  return kind == MemoryKind::Device || kind == MemoryKind::Managed || kind == MemoryKind::Pool ||
         kind == MemoryKind::Graph;
}

std::size_t rounded(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

void note_pool_use(SimMemPool& pool, std::size_t bytes) {
  pool.used += bytes;
  pool.used_high = std::max(pool.used_high, pool.used);
}

// A block given back to its pool: cached for reuse, or released at once when the pool was destroyed
// (cuMemPoolDestroy: its memory goes once no allocation is outstanding).
void give_back_to_pool(SimMemPool& pool, std::uintptr_t base, std::size_t footprint) {
  if (!pool.destroyed) {
    pool.cached.emplace(footprint, base);
    return;
  }
  std::free(reinterpret_cast<void*>(base));
  pool.reserved -= footprint;
  pool.device->memory_in_use -= footprint;
}

void release_finished() {
  auto& deferred = state().deferred;
  std::erase_if(deferred, [](DeferredRelease& release) {
    if (!satisfied(release.after)) return false;
    if (release.pool != nullptr)
      give_back_to_pool(*release.pool, reinterpret_cast<std::uintptr_t>(release.storage), release.footprint);
    else
      std::free(release.storage);
    return true;
  });
}

// The allocation that contains [address, address + bytes), or end().
std::map<std::uintptr_t, Allocation>::iterator containing(std::uintptr_t address, std::size_t bytes) {
  auto& live = state().live;
  auto it = live.upper_bound(address);
  if (it == live.begin()) return live.end();
  --it;
  if (address + bytes < address || address + bytes > it->first + it->second.size) return live.end();
  return it;
}

}  // namespace

CUresult allocate(MemoryKind kind, std::size_t bytes, SimContext& context, SimMemPool* pool, std::uintptr_t& out) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  release_finished();
  SimDevice& device = *context.device;
  const std::size_t size = rounded(bytes);
  if (kind == MemoryKind::Pool) {
    auto cached = pool->cached.find(size);
    if (cached != pool->cached.end()) {
      out = cached->second;
      pool->cached.erase(cached);
      state().live[out] = Allocation{bytes, size, kind, &device, nullptr, pool, &context};
      note_pool_use(*pool, size);
      return CUDA_SUCCESS;
    }
  }
  if (counts_on_device(kind) && device.memory_in_use + size > device.total_memory) return CUDA_ERROR_OUT_OF_MEMORY;
  void* storage = std::aligned_alloc(kAlignment, size);
  if (storage == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  out = reinterpret_cast<std::uintptr_t>(storage);
  if (counts_on_device(kind)) device.memory_in_use += size;
  if (kind == MemoryKind::Pool)
    state().live[out] = Allocation{bytes, size, kind, &device, nullptr, pool, &context};
  else
    state().live[out] = Allocation{bytes, size, kind, &device, &context, pool};
  if (kind == MemoryKind::Pool) {
    pool->reserved += size;
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    note_pool_use(*pool, size);
  }
  return CUDA_SUCCESS;
}

CUresult free_allocation(std::uintptr_t base, std::initializer_list<MemoryKind> kinds) {
  release_finished();
  auto& live = state().live;
  auto it = live.find(base);
  if (it == live.end() || std::find(kinds.begin(), kinds.end(), it->second.kind) == kinds.end())
    return CUDA_ERROR_INVALID_VALUE;
  if (it->second.kind == MemoryKind::Graph) return CUDA_SUCCESS;  // its node keeps it (sim_memory.h)
  Allocation allocation = it->second;
  live.erase(it);
  // Like device memory, a pool block freed with cuMemFree is reused or released only after the work
  // enqueued before the free (in the context it was ordered in) has finished.
  const bool pool_block = allocation.kind == MemoryKind::Pool;
  const SimContext* ordered = pool_block ? allocation.ordered_in : allocation.context;
  if (pool_block) allocation.pool->used -= allocation.footprint;
  else if (counts_on_device(allocation.kind)) allocation.device->memory_in_use -= allocation.footprint;
  std::vector<Dependency> after;
  if (auto context = find_context(reinterpret_cast<CUcontext>(const_cast<SimContext*>(ordered))))
    after = completion_of(*context);
  state().deferred.push_back(DeferredRelease{reinterpret_cast<void*>(base), std::move(after),
                                             pool_block ? allocation.pool : nullptr, allocation.footprint});
  release_finished();
  return CUDA_SUCCESS;
}

void return_to_pool(std::uintptr_t base) {
  auto& live = state().live;
  auto it = live.find(base);
  if (it == live.end() || it->second.kind != MemoryKind::Pool) return;
  it->second.pool->used -= it->second.footprint;
  give_back_to_pool(*it->second.pool, base, it->second.footprint);
  live.erase(it);
}

CUresult trim_pool(SimMemPool& pool, std::size_t keep_bytes) {
  while (pool.reserved > keep_bytes && !pool.cached.empty()) {
    auto largest = std::prev(pool.cached.end());
    std::free(reinterpret_cast<void*>(largest->second));
    pool.reserved -= largest->first;
    pool.device->memory_in_use -= largest->first;
    pool.cached.erase(largest);
  }
  return CUDA_SUCCESS;
}

CUresult get_pool_attribute(const SimMemPool& pool, CUmemPool_attribute attribute, void* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto as_int = [value](int answer) { *static_cast<int*>(value) = answer; };
  auto as_bytes = [value](std::uint64_t answer) { *static_cast<cuuint64_t*>(value) = answer; };
  switch (attribute) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: as_int(pool.reuse_follow_event_dependencies); break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: as_int(pool.reuse_allow_opportunistic); break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: as_int(pool.reuse_allow_internal_dependencies); break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: as_bytes(pool.release_threshold); break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: as_bytes(pool.reserved); break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: as_bytes(pool.reserved_high); break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: as_bytes(pool.used); break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: as_bytes(pool.used_high); break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult set_pool_attribute(SimMemPool& pool, CUmemPool_attribute attribute, const void* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto flag = [value] { return *static_cast<const int*>(value) != 0 ? 1 : 0; };
  switch (attribute) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: pool.reuse_follow_event_dependencies = flag(); break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: pool.reuse_allow_opportunistic = flag(); break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: pool.reuse_allow_internal_dependencies = flag(); break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: pool.release_threshold = *static_cast<const cuuint64_t*>(value); break;
    // The high-water marks can only be reset, to the current value, by setting 0.
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      if (*static_cast<const cuuint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;
      pool.reserved_high = pool.reserved;
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      if (*static_cast<const cuuint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;
      pool.used_high = pool.used;
      break;
    default: return CUDA_ERROR_INVALID_VALUE;  // the current amounts are read-only
  }
  return CUDA_SUCCESS;
}

void destroy_pool(SimMemPool& pool) {
  pool.destroyed = true;
  trim_pool(pool, 0);
}

void release_above_thresholds() {
  auto& driver = SimDriver::instance();
  driver.mem_pools.for_each(
      [](const std::shared_ptr<SimMemPool>& pool) { trim_pool(*pool, pool->release_threshold); });
  // A destroyed pool is kept while blocks of it are outstanding (an allocation points at it).
  std::erase_if(driver.destroyed_pools, [](const std::shared_ptr<SimMemPool>& pool) { return pool->reserved == 0; });
}

CUresult register_host(void* pointer, std::size_t bytes, SimContext& context) {
  if (pointer == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  auto& live = state().live;
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  // Any overlap with memory the driver already pins is refused.
  auto it = live.lower_bound(address + bytes);
  if (it != live.begin()) {
    --it;
    if (it->first + it->second.size > address) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  }
  live[address] = Allocation{bytes, bytes, MemoryKind::RegisteredHost, context.device, &context, nullptr};
  return CUDA_SUCCESS;
}

CUresult unregister_host(void* pointer) {
  auto& live = state().live;
  auto it = live.find(reinterpret_cast<std::uintptr_t>(pointer));
  if (it == live.end() || it->second.kind != MemoryKind::RegisteredHost) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  live.erase(it);
  return CUDA_SUCCESS;
}

CUresult pointer_attribute(std::uintptr_t address, CUpointer_attribute attribute, void* data) {
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto it = containing(address, 1);
  if (it == state().live.end()) return CUDA_ERROR_INVALID_VALUE;
  const Allocation& found = it->second;
  const bool on_host = found.kind == MemoryKind::PinnedHost || found.kind == MemoryKind::RegisteredHost;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned*>(data) = on_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = found.device->ordinal; break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<unsigned*>(data) = found.kind == MemoryKind::Managed; break;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = reinterpret_cast<CUcontext>(const_cast<SimContext*>(found.context));
      break;
    // Host and device see one address space in the sim: the device pointer is the host backing.
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = address; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!on_host && found.kind != MemoryKind::Managed) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = reinterpret_cast<void*>(address);
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = it->first; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<std::size_t*>(data) = found.size; break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      *static_cast<CUmemoryPool*>(data) = reinterpret_cast<CUmemoryPool>(found.pool);
      break;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}

namespace {

// The bytes of an attribute's answer, or 0 for one the sim does not model.
std::size_t attribute_size(CUpointer_attribute attribute) {
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: return sizeof(unsigned);
    case CU_POINTER_ATTRIBUTE_CONTEXT:
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: return sizeof(void*);
    default: return 0;
  }
}

}  // namespace

CUresult pointer_attributes(std::uintptr_t address, unsigned count, const CUpointer_attribute* attributes,
                            void** data) {
  if (count == 0 || attributes == nullptr || data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < count; ++i) {
    if (data[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (attribute_size(attributes[i]) == 0) return CUDA_ERROR_NOT_SUPPORTED;
  }
  // Unlike cuPointerGetAttribute, an address outside every allocation (or an attribute that does not
  // apply, such as the host pointer of device memory) is no error: its answer is the null value.
  for (unsigned i = 0; i < count; ++i) {
    if (pointer_attribute(address, attributes[i], data[i]) != CUDA_SUCCESS)
      std::memset(data[i], 0, attribute_size(attributes[i]));
  }
  return CUDA_SUCCESS;
}

bool device_accessible(std::uintptr_t address, std::size_t bytes) {
  return containing(address, bytes) != state().live.end();
}

bool needs_staging(const void* address, std::size_t bytes) {
  return containing(reinterpret_cast<std::uintptr_t>(address), bytes) == state().live.end();
}

bool is_graph_allocation(std::uintptr_t address) {
  auto it = state().live.find(address);
  return it != state().live.end() && it->second.kind == MemoryKind::Graph;
}

void release_graph_allocation(std::uintptr_t base) {
  auto& live = state().live;
  auto it = live.find(base);
  if (it == live.end() || it->second.kind != MemoryKind::Graph) return;
  it->second.device->memory_in_use -= it->second.footprint;
  std::free(reinterpret_cast<void*>(base));
  live.erase(it);
}

bool is_pool_allocation(std::uintptr_t address) {
  auto it = state().live.find(address);
  return it != state().live.end() && it->second.kind == MemoryKind::Pool;
}

std::size_t memory_in_use(const SimDevice& device) { return device.memory_in_use; }

void release_context_memory(const SimContext& context) {
  auto& live = state().live;
  for (auto it = live.begin(); it != live.end();) {
    if (it->second.context != &context) {
      ++it;
      continue;
    }
    if (counts_on_device(it->second.kind)) it->second.device->memory_in_use -= it->second.footprint;
    if (owns_storage(it->second.kind)) std::free(reinterpret_cast<void*>(it->first));
    it = live.erase(it);
  }
}

}  // namespace gilsan::sim
