// Recipes for memory: device, pinned, registered, managed and pool allocations, copies and memsets.
// Every allocation's two halves are separate recipes: what one frees was allocated in preparation.
#include "harness/probe/call_recipe.h"
#include "harness/driver/device_memory_properties.h"

namespace gilsan::probe {
namespace {

constexpr std::size_t kAllocation = 1 << 20;  // device and managed allocations
constexpr std::size_t kHostBytes = 1 << 16;   // pinned, registered and copied host memory

void new_pool(const ProbeFixture& f, RecipeState& s) {
  const CUmemPoolProps props = pinned_device_pool_properties(f.device);
  f.check("cuMemPoolCreate", f.driver.cuMemPoolCreate(&s.pool, &props));
}

}  // namespace

void add_memory_recipes(std::vector<CallRecipe>& out) {
  using F = const ProbeFixture&;
  using S = RecipeState&;

  out.push_back({.id = "cuMemGetInfo",
                 .description = "free and total memory of the current context's device",
                 .call = [](F f, S) {
                   std::size_t free_bytes = 0;
                   std::size_t total_bytes = 0;
                   return f.driver.cuMemGetInfo(&free_bytes, &total_bytes);
                 }});
  out.push_back({.id = "cuMemAlloc",
                 .description = "allocates 1 MiB of device memory",
                 .call = [](F f, S s) { return f.driver.cuMemAlloc(&s.device_memory, kAllocation); }});
  out.push_back({.id = "cuMemFree",
                 .description = "frees 1 MiB of device memory allocated in preparation",
                 .prepare = [](F f, S s) { s.device_memory = f.new_device_memory(kAllocation); },
                 .call = [](F f, S s) { return f.driver.cuMemFree(s.device_memory); }});
  out.push_back({.id = "cuMemAllocHost",
                 .description = "allocates 64 KiB of pinned host memory",
                 .call = [](F f, S s) { return f.driver.cuMemAllocHost(&s.host_memory, kHostBytes); }});
  out.push_back({.id = "cuMemFreeHost",
                 .description = "frees 64 KiB of pinned host memory allocated in preparation",
                 .prepare = [](F f, S s) { s.host_memory = f.new_pinned_memory(kHostBytes); },
                 .call = [](F f, S s) { return f.driver.cuMemFreeHost(s.host_memory); }});
  out.push_back({.id = "cuMemHostAlloc",
                 .description = "allocates 64 KiB of portable pinned host memory",
                 .call = [](F f, S s) {
                   return f.driver.cuMemHostAlloc(&s.host_memory, kHostBytes, CU_MEMHOSTALLOC_PORTABLE);
                 }});
  out.push_back({.id = "cuMemHostRegister",
                 .description = "pins (registers) 64 KiB of page-aligned ordinary host memory",
                 .call = [](F f, S s) { return f.driver.cuMemHostRegister(s.page_aligned(kHostBytes), kHostBytes, 0); }});
  out.push_back({.id = "cuMemHostUnregister",
                 .description = "unregisters 64 KiB of host memory registered in preparation",
                 .prepare = [](F f, S s) {
                   f.check("cuMemHostRegister", f.driver.cuMemHostRegister(s.page_aligned(kHostBytes), kHostBytes, 0));
                 },
                 .call = [](F f, S s) { return f.driver.cuMemHostUnregister(s.page_aligned(kHostBytes)); }});
  out.push_back({.id = "cuMemAllocManaged",
                 .description = "allocates 1 MiB of managed memory (attach global)",
                 .call = [](F f, S s) {
                   return f.driver.cuMemAllocManaged(&s.device_memory, kAllocation, CU_MEM_ATTACH_GLOBAL);
                 }});
  out.push_back({.id = "cuPointerGetAttribute",
                 .description = "the memory type of 1 MiB of device memory allocated in preparation",
                 .prepare = [](F f, S s) { s.device_memory = f.new_device_memory(kAllocation); },
                 .call = [](F f, S s) {
                   unsigned type = 0;
                   return f.driver.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, s.device_memory);
                 }});
  out.push_back({.id = "cuPointerGetAttributes",
                 .description = "the memory type and device ordinal of 1 MiB of device memory allocated in preparation",
                 .prepare = [](F f, S s) { s.device_memory = f.new_device_memory(kAllocation); },
                 .call = [](F f, S s) {
                   unsigned type = 0;
                   int ordinal = -1;
                   CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
                   void* answers[] = {&type, &ordinal};
                   return f.driver.cuPointerGetAttributes(2, attributes, answers, s.device_memory);
                 }});
  out.push_back({.id = "cuMemAllocAsync",
                 .description = "allocates 1 MiB from the default pool, ordered on S2",
                 .call = [](F f, S s) { return f.driver.cuMemAllocAsync(&s.device_memory, kAllocation, f.s2); }});
  out.push_back({.id = "cuMemFreeAsync",
                 .description = "frees, ordered on S2, 1 MiB allocated with cuMemAllocAsync in preparation",
                 .prepare = [](F f, S s) {
                   f.check("cuMemAllocAsync", f.driver.cuMemAllocAsync(&s.device_memory, kAllocation, f.s2));
                   f.check("cuStreamSynchronize", f.driver.cuStreamSynchronize(f.s2));
                 },
                 .call = [](F f, S s) { return f.driver.cuMemFreeAsync(s.device_memory, f.s2); }});
  out.push_back({.id = "cuMemAllocFromPoolAsync",
                 .description = "allocates 1 MiB from the device's default pool, ordered on S2",
                 .prepare = [](F f, S s) { s.pool = f.default_pool(); },
                 .call = [](F f, S s) {
                   return f.driver.cuMemAllocFromPoolAsync(&s.device_memory, kAllocation, s.pool, f.s2);
                 }});
  out.push_back({.id = "cuMemPoolTrimTo",
                 .description = "trims the device's default pool to 0 bytes kept",
                 .prepare = [](F f, S s) { s.pool = f.default_pool(); },
                 .call = [](F f, S s) { return f.driver.cuMemPoolTrimTo(s.pool, 0); }});
  out.push_back({.id = "cuMemPoolCreate",
                 .description = "creates a pool of device 0's memory",
                 .call = [](F f, S s) {
                   const CUmemPoolProps props = pinned_device_pool_properties(f.device);
                   return f.driver.cuMemPoolCreate(&s.pool, &props);
                 }});
  out.push_back({.id = "cuMemPoolDestroy",
                 .description = "destroys a pool created in preparation",
                 .prepare = new_pool,
                 .call = [](F f, S s) { return f.driver.cuMemPoolDestroy(s.pool); }});
  out.push_back({.id = "cuMemPoolSetAttribute",
                 .description = "sets the release threshold of a pool created in preparation",
                 .prepare = new_pool,
                 .call = [](F f, S s) {
                   cuuint64_t threshold = kAllocation;
                   return f.driver.cuMemPoolSetAttribute(s.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
                 }});
  out.push_back({.id = "cuMemPoolGetAttribute",
                 .description = "the bytes in use of device 0's default pool",
                 .prepare = [](F f, S s) { s.pool = f.default_pool(); },
                 .call = [](F f, S s) {
                   cuuint64_t used = 0;
                   return f.driver.cuMemPoolGetAttribute(s.pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
                 }});

  auto device_and_pageable = [](F f, S s) {
    s.device_memory = f.new_device_memory(kHostBytes);
    s.pageable.assign(kHostBytes, 0x5a);
  };
  auto device_and_pinned = [](F f, S s) {
    s.device_memory = f.new_device_memory(kHostBytes);
    s.host_memory = f.new_pinned_memory(kHostBytes);
  };
  auto two_device_buffers = [](F f, S s) {
    s.device_memory = f.new_device_memory(kHostBytes);
    s.second_device_memory = f.new_device_memory(kHostBytes);
  };
  out.push_back({.id = "cuMemcpyHtoD",
                 .description = "synchronous 64 KiB copy from pageable host memory to the device",
                 .prepare = device_and_pageable,
                 .call = [](F f, S s) { return f.driver.cuMemcpyHtoD(s.device_memory, s.pageable.data(), kHostBytes); }});
  out.push_back({.id = "cuMemcpyDtoH",
                 .description = "synchronous 64 KiB copy from the device to pageable host memory",
                 .prepare = device_and_pageable,
                 .call = [](F f, S s) { return f.driver.cuMemcpyDtoH(s.pageable.data(), s.device_memory, kHostBytes); }});
  out.push_back({.id = "cuMemcpyDtoD",
                 .description = "synchronous 64 KiB device-to-device copy",
                 .prepare = two_device_buffers,
                 .call = [](F f, S s) {
                   return f.driver.cuMemcpyDtoD(s.second_device_memory, s.device_memory, kHostBytes);
                 }});
  out.push_back({.id = "cuMemcpyHtoDAsync",
                 .description = "64 KiB copy from pinned memory to the device, ordered on S2",
                 .prepare = device_and_pinned,
                 .call = [](F f, S s) {
                   return f.driver.cuMemcpyHtoDAsync(s.device_memory, s.host_memory, kHostBytes, f.s2);
                 }});
  out.push_back({.id = "cuMemcpyDtoHAsync",
                 .description = "64 KiB copy from the device to pinned memory, ordered on S2",
                 .prepare = device_and_pinned,
                 .call = [](F f, S s) {
                   return f.driver.cuMemcpyDtoHAsync(s.host_memory, s.device_memory, kHostBytes, f.s2);
                 }});
  out.push_back({.id = "cuMemcpyDtoDAsync",
                 .description = "64 KiB device-to-device copy, ordered on S2",
                 .prepare = two_device_buffers,
                 .call = [](F f, S s) {
                   return f.driver.cuMemcpyDtoDAsync(s.second_device_memory, s.device_memory, kHostBytes, f.s2);
                 }});
  auto device_buffer = [](F f, S s) { s.device_memory = f.new_device_memory(kHostBytes); };
  out.push_back({.id = "cuMemsetD8",
                 .description = "synchronous memset of 64 KiB of device memory, byte by byte",
                 .prepare = device_buffer,
                 .call = [](F f, S s) { return f.driver.cuMemsetD8(s.device_memory, 0x5a, kHostBytes); }});
  out.push_back({.id = "cuMemsetD32",
                 .description = "synchronous memset of 64 KiB of device memory, 32-bit words",
                 .prepare = device_buffer,
                 .call = [](F f, S s) { return f.driver.cuMemsetD32(s.device_memory, 0x5a5a5a5a, kHostBytes / 4); }});
  out.push_back({.id = "cuMemsetD8Async",
                 .description = "memset of 64 KiB of device memory, ordered on S2",
                 .prepare = device_buffer,
                 .call = [](F f, S s) { return f.driver.cuMemsetD8Async(s.device_memory, 0x5a, kHostBytes, f.s2); }});
  out.push_back({.id = "cuMemsetD32Async",
                 .description = "memset of 64 KiB of device memory in 32-bit words, ordered on S2",
                 .prepare = device_buffer,
                 .call = [](F f, S s) {
                   return f.driver.cuMemsetD32Async(s.device_memory, 0x5a5a5a5a, kHostBytes / 4, f.s2);
                 }});
}

}  // namespace gilsan::probe
