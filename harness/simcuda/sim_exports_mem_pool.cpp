// Memory pools (stream-ordered allocation): a device's default and current pool, pools made and
// destroyed by the application, their attributes and trimming. Allocating from a pool and freeing to it
// are stream work (sim_exports_memory.cpp); the blocks are sim_memory.cpp's.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_memory.h"

using namespace gilsan::sim;

namespace {

CUmemoryPool handle_of(const std::shared_ptr<SimMemPool>& pool) { return reinterpret_cast<CUmemoryPool>(pool.get()); }

// What cuMemPoolCreate accepts: pinned device memory of one device (the only kind CUDA's pools hold
// besides host-located pools, which the sim does not model), any export handle type.
CUresult checked_properties(const CUmemPoolProps* props, SimDevice*& device) {
  if (props == nullptr || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  device = SimDriver::instance().device(props->location.id);
  return device == nullptr ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  ApiScope api(entry("cuDeviceGetDefaultMemPool"), on_current_context());
  if (api.refused()) return api.result();
  const SimDevice* device = SimDriver::instance().device(dev);
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  if (pool_out == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  *pool_out = handle_of(device->default_pool);  // set once, at cuInit
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  ApiScope api(entry("cuDeviceGetMemPool"), on_current_context());
  if (api.refused()) return api.result();
  const SimDevice* device = SimDriver::instance().device(dev);
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  if (pool_out == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  Lock lock(SimDriver::instance().mutex);
  *pool_out = handle_of(device->current_pool);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  ApiScope api(entry("cuDeviceSetMemPool"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  SimDevice* device = driver.device(dev);
  if (device == nullptr) return api.finish(CUDA_ERROR_INVALID_DEVICE);
  Lock lock(driver.mutex);
  std::shared_ptr<SimMemPool> found = driver.mem_pools.find(pool);
  // A pool serves the device its memory is on.
  if (!found || found->device != device) return api.finish(CUDA_ERROR_INVALID_VALUE);
  device->current_pool = std::move(found);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool* pool_out, const CUmemPoolProps* props) {
  ApiScope api(entry("cuMemPoolCreate"), on_current_context());
  if (api.refused()) return api.result();
  if (pool_out == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  SimDevice* device = nullptr;
  if (CUresult rc = checked_properties(props, device); rc != CUDA_SUCCESS) return api.finish(rc);
  return api.finish(guarded([&] {
    auto pool = std::make_shared<SimMemPool>();
    pool->device = device;
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    driver.mem_pools.add(pool);
    *pool_out = handle_of(pool);
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) {
  ApiScope api(entry("cuMemPoolDestroy"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimMemPool> found = driver.mem_pools.find(pool);
  if (!found || found->is_default) return api.finish(CUDA_ERROR_INVALID_VALUE);
  // A device whose current pool this was goes back to its default pool (cuMemPoolDestroy's contract).
  if (found->device->current_pool == found) found->device->current_pool = found->device->default_pool;
  driver.mem_pools.remove(pool);
  destroy_pool(*found);
  if (found->reserved > 0) driver.destroyed_pools.push_back(std::move(found));
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  ApiScope api(entry("cuMemPoolSetAttribute"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimMemPool> found = driver.mem_pools.find(pool);
  if (!found) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(set_pool_attribute(*found, attr, value));
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  ApiScope api(entry("cuMemPoolGetAttribute"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimMemPool> found = driver.mem_pools.find(pool);
  if (!found) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(get_pool_attribute(*found, attr, value));
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  ApiScope api(entry("cuMemPoolTrimTo"), on_current_context());
  if (api.refused()) return api.result();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimMemPool> found = driver.mem_pools.find(pool);
  if (!found) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(trim_pool(*found, minBytesToKeep));
}

}  // extern "C"
