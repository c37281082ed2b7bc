// Allocation entry points that take no stream: device, pinned host, managed and registered memory, and
// what the driver says of a pointer into one.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_memory.h"

using namespace gilsan::sim;

namespace {

CUresult allocate_in_current_context(MemoryKind kind, std::size_t bytes, std::uintptr_t& out) {
  Lock lock(SimDriver::instance().mutex);
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return CUDA_ERROR_INVALID_CONTEXT;
  return allocate(kind, bytes, *context, nullptr, out);
}

// What the H200's driver answers cuMemAlloc and cuMemFree with on a context whose work faulted.
CUresult current_context_error() {
  Lock lock(SimDriver::instance().mutex);
  std::shared_ptr<SimContext> context = current_context();
  return context ? context->sticky_error : CUDA_SUCCESS;
}

CUresult allocate_pinned(void** pp, std::size_t bytes) {
  if (pp == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::uintptr_t address = 0;
  CUresult rc = allocate_in_current_context(MemoryKind::PinnedHost, bytes, address);
  if (rc == CUDA_SUCCESS) *pp = reinterpret_cast<void*>(address);
  return rc;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuMemGetInfo(size_t* free, size_t* total) {
  ApiScope api(entry("cuMemGetInfo"), on_current_context());
  if (api.refused()) return api.result();
  if (free == nullptr || total == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  Lock lock(SimDriver::instance().mutex);
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return api.finish(CUDA_ERROR_INVALID_CONTEXT);
  *total = context->device->total_memory;
  *free = *total - memory_in_use(*context->device);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* dptr, size_t bytesize) {
  ApiScope api(entry("cuMemAlloc"), on_current_context());
  if (api.refused()) return api.result();
  if (dptr == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    if (CUresult failed = current_context_error(); failed != CUDA_SUCCESS) return failed;
    std::uintptr_t address = 0;
    CUresult rc = allocate_in_current_context(MemoryKind::Device, bytesize, address);
    if (rc == CUDA_SUCCESS) *dptr = address;
    return rc;
  }));
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) {
  ApiScope api(entry("cuMemFree"), on_current_context());
  if (api.refused()) return api.result();
  if (dptr == 0) return api.finish(CUDA_SUCCESS);
  return api.finish(guarded([&] {
    CUresult rc;
    {
      Lock lock(SimDriver::instance().mutex);
      rc = free_allocation(dptr, {MemoryKind::Device, MemoryKind::Managed, MemoryKind::Pool, MemoryKind::Graph});
    }
    return rc == CUDA_SUCCESS ? current_context_error() : rc;  // freed, and the failure still said
  }));
}

CUresult CUDAAPI cuMemAllocHost(void** pp, size_t bytesize) {
  ApiScope api(entry("cuMemAllocHost"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return allocate_pinned(pp, bytesize); }));
}

CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  ApiScope api(entry("cuMemHostAlloc"), on_current_context());
  if (api.refused()) return api.result();
  constexpr unsigned kKnown = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if ((Flags & ~kKnown) != 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] { return allocate_pinned(pp, bytesize); }));
}

CUresult CUDAAPI cuMemFreeHost(void* p) {
  ApiScope api(entry("cuMemFreeHost"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return free_allocation(reinterpret_cast<std::uintptr_t>(p), {MemoryKind::PinnedHost});
  }));
}

CUresult CUDAAPI cuMemHostRegister(void* p, size_t bytesize, unsigned int Flags) {
  ApiScope api(entry("cuMemHostRegister"), on_current_context());
  if (api.refused()) return api.result();
  constexpr unsigned kKnown = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                              CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
  if ((Flags & ~kKnown) != 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (Flags & CU_MEMHOSTREGISTER_IOMEMORY) return api.finish(SimDriver::instance().unsupported());
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    return register_host(p, bytesize, *context);
  }));
}

CUresult CUDAAPI cuMemHostUnregister(void* p) {
  ApiScope api(entry("cuMemHostUnregister"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    return unregister_host(p);
  }));
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  ApiScope api(entry("cuMemAllocManaged"), on_current_context());
  if (api.refused()) return api.result();
  if (dptr == nullptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    std::uintptr_t address = 0;
    CUresult rc = allocate_in_current_context(MemoryKind::Managed, bytesize, address);
    if (rc == CUDA_SUCCESS) *dptr = address;
    return rc;
  }));
}

CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  ApiScope api(entry("cuPointerGetAttribute"), on_current_context());
  if (api.refused()) return api.result();
  Lock lock(SimDriver::instance().mutex);
  return api.finish(pointer_attribute(ptr, attribute, data));
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                        CUdeviceptr ptr) {
  ApiScope api(entry("cuPointerGetAttributes"), on_current_context());
  if (api.refused()) return api.result();
  Lock lock(SimDriver::instance().mutex);
  return api.finish(pointer_attributes(ptr, numAttributes, attributes, data));
}

}  // extern "C"
