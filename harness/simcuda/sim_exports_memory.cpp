// Memory: device, pinned host, managed, registered and pool allocations; copies and sets.
#include "harness/driver/device_memory_properties.h"
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_capture.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_graph_nodes.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
namespace {

Copy linear_copy(CUmemorytype to, void* to_host, CUdeviceptr to_device, CUmemorytype from, const void* from_host,
                 CUdeviceptr from_device, std::size_t bytes) {
  Copy copy;
  copy.shape.dstMemoryType = to;
  copy.shape.dstHost = to_host;
  copy.shape.dstDevice = to_device;
  copy.shape.srcMemoryType = from;
  copy.shape.srcHost = from_host;
  copy.shape.srcDevice = from_device;
  copy.shape.WidthInBytes = bytes;
  copy.shape.Height = 1;
  copy.shape.Depth = 1;
  return copy;
}

// Checks a copy's pointers, then runs it on `handle` (NULL: the default stream). A synchronous copy,
// and an asynchronous one to pageable host memory, return only once the copy is done; an
// asynchronous copy from pageable memory is staged first, so the caller may reuse its buffer at once.
CUresult copy_on_stream(Copy copy, CUstream handle, DefaultStream null_stream, bool synchronous) {
  const CUDA_MEMCPY3D& shape = copy.shape;
  const std::size_t bytes = shape.WidthInBytes;
  if (bytes == 0) return CUDA_SUCCESS;
  Lock lock(SimDriver::instance().mutex);
  for (auto [type, host, device] : {std::tuple{shape.srcMemoryType, shape.srcHost, shape.srcDevice},
                                    std::tuple{shape.dstMemoryType, static_cast<const void*>(shape.dstHost),
                                               shape.dstDevice}}) {
    if (type == CU_MEMORYTYPE_HOST ? host == nullptr : !device_accessible(device, bytes))
      return CUDA_ERROR_INVALID_VALUE;
  }
  std::shared_ptr<SimStream> stream;
  if (CUresult rc = resolve_stream(handle, null_stream, stream); rc != CUDA_SUCCESS) return rc;
  const bool capturing = stream->capture != nullptr;
  if (!synchronous && !capturing && shape.srcMemoryType == CU_MEMORYTYPE_HOST &&
      needs_staging(shape.srcHost, bytes)) {
    const auto* source = static_cast<const unsigned char*>(shape.srcHost);
    copy.staged = std::make_shared<std::vector<unsigned char>>(source, source + bytes);
  }
  const bool wait = synchronous || (!capturing && shape.dstMemoryType == CU_MEMORYTYPE_HOST &&
                                    needs_staging(shape.dstHost, bytes));
  if (CUresult rc = submit(lock, *stream, std::move(copy)); rc != CUDA_SUCCESS) return rc;
  if (wait && !capturing) {
    wait_for(lock, {Dependency{stream, stream->enqueued}});
    return stream->context->sticky_error;
  }
  return CUDA_SUCCESS;
}

CUresult fill_on_stream(CUdeviceptr destination, std::uint32_t value, unsigned element_size, std::size_t count,
                        CUstream handle, DefaultStream null_stream, bool synchronous) {
  if (count == 0) return CUDA_SUCCESS;
  Lock lock(SimDriver::instance().mutex);
  if (!device_accessible(destination, count * element_size)) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<SimStream> stream;
  if (CUresult rc = resolve_stream(handle, null_stream, stream); rc != CUDA_SUCCESS) return rc;
  if (CUresult rc = submit(lock, *stream, Fill{destination, value, element_size, count}); rc != CUDA_SUCCESS)
    return rc;
  if (synchronous) {
    wait_for(lock, {Dependency{stream, stream->enqueued}});
    return stream->context->sticky_error;
  }
  return CUDA_SUCCESS;
}

CUresult allocate_from_pool(CUdeviceptr* dptr, std::size_t bytes, CUmemoryPool pool_handle, CUstream handle,
                            DefaultStream null_stream) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimStream> stream;
  if (CUresult rc = resolve_stream(handle, null_stream, stream); rc != CUDA_SUCCESS) return rc;
  std::shared_ptr<SimMemPool> pool =
      pool_handle != nullptr ? driver.mem_pools.find(pool_handle) : stream->context->device->current_pool;
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  if (stream->capture) {
    // Captured, the allocation becomes an allocation node of the capture's graph, of the pool's device.
    CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(pool->device->ordinal, bytes);
    if (CUresult rc = capture_node(*stream, [&](const NodePlace& place) { return add_mem_alloc_node(place, params); });
        rc != CUDA_SUCCESS)
      return rc;
    *dptr = params.dptr;
    return CUDA_SUCCESS;
  }
  // The block exists from now on; work ordered after this call on the stream may use it.
  std::uintptr_t address = 0;
  if (CUresult rc = allocate(MemoryKind::Pool, bytes, *stream->context, pool.get(), address); rc != CUDA_SUCCESS)
    return rc;
  *dptr = address;
  return CUDA_SUCCESS;
}

}  // namespace

namespace api {

CUresult mem_alloc_async(CUdeviceptr* dptr, size_t bytesize, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuMemAllocAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return allocate_from_pool(dptr, bytesize, nullptr, hStream, null_stream); }));
}

CUresult mem_alloc_from_pool_async(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream,
                                   DefaultStream null_stream) {
  ApiScope api(entry("cuMemAllocFromPoolAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  if (pool == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] { return allocate_from_pool(dptr, bytesize, pool, hStream, null_stream); }));
}

CUresult mem_free_async(CUdeviceptr dptr, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuMemFreeAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    // Captured, a free of a graph allocation becomes a free node; outside a capture such a free leaves the
    // block to its node (sim_memory.h).
    if (stream->capture) {
      return capture_node(*stream, [&](const NodePlace& place) { return add_mem_free_node(place, dptr); });
    }
    if (is_graph_allocation(dptr)) return CUDA_SUCCESS;
    if (!is_pool_allocation(dptr)) return CUDA_ERROR_INVALID_VALUE;
    return submit(lock, *stream, PoolFree{dptr});
  }));
}

CUresult memcpy_htod(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyHtoD"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_DEVICE, nullptr, dstDevice, CU_MEMORYTYPE_HOST, srcHost, 0, ByteCount), nullptr,
        null_stream, true);
  }));
}

CUresult memcpy_dtoh(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyDtoH"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_HOST, dstHost, 0, CU_MEMORYTYPE_DEVICE, nullptr, srcDevice, ByteCount), nullptr,
        null_stream, true);
  }));
}

CUresult memcpy_dtod(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyDtoD"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_DEVICE, nullptr, dstDevice, CU_MEMORYTYPE_DEVICE, nullptr, srcDevice, ByteCount),
        nullptr, null_stream, true);
  }));
}

CUresult memcpy_htod_async(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream,
                           DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyHtoDAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_DEVICE, nullptr, dstDevice, CU_MEMORYTYPE_HOST, srcHost, 0, ByteCount), hStream,
        null_stream, false);
  }));
}

CUresult memcpy_dtoh_async(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream,
                           DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyDtoHAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_HOST, dstHost, 0, CU_MEMORYTYPE_DEVICE, nullptr, srcDevice, ByteCount), hStream,
        null_stream, false);
  }));
}

CUresult memcpy_dtod_async(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream,
                           DefaultStream null_stream) {
  ApiScope api(entry("cuMemcpyDtoDAsync"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    return copy_on_stream(
        linear_copy(CU_MEMORYTYPE_DEVICE, nullptr, dstDevice, CU_MEMORYTYPE_DEVICE, nullptr, srcDevice, ByteCount),
        hStream, null_stream, false);
  }));
}

CUresult memset_d8(CUdeviceptr dstDevice, unsigned char uc, size_t N, DefaultStream null_stream) {
  ApiScope api(entry("cuMemsetD8"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return fill_on_stream(dstDevice, uc, 1, N, nullptr, null_stream, true); }));
}

CUresult memset_d32(CUdeviceptr dstDevice, unsigned ui, size_t N, DefaultStream null_stream) {
  ApiScope api(entry("cuMemsetD32"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return fill_on_stream(dstDevice, ui, 4, N, nullptr, null_stream, true); }));
}

CUresult memset_d8_async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream,
                         DefaultStream null_stream) {
  ApiScope api(entry("cuMemsetD8Async"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return fill_on_stream(dstDevice, uc, 1, N, hStream, null_stream, false); }));
}

CUresult memset_d32_async(CUdeviceptr dstDevice, unsigned ui, size_t N, CUstream hStream, DefaultStream null_stream) {
  ApiScope api(entry("cuMemsetD32Async"), on_stream(hStream));
  if (api.refused()) return api.result();
  return api.finish(guarded([&] { return fill_on_stream(dstDevice, ui, 4, N, hStream, null_stream, false); }));
}

}  // namespace api
}  // namespace gilsan::sim
