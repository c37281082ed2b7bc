// The descriptions of device memory that pools and graph allocation nodes take, as the probe and the
// tests ask for it: pinned memory of one device, the kind CUDA's stream-ordered allocator makes by default
// and the only kind a graph allocates.
#pragma once

#include <cuda.h>

#include <cstddef>

namespace gilsan {

inline CUmemPoolProps pinned_device_pool_properties(CUdevice device) {
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  return props;
}

inline CUDA_MEM_ALLOC_NODE_PARAMS graph_allocation_params(CUdevice device, std::size_t bytes) {
  CUDA_MEM_ALLOC_NODE_PARAMS params{};
  params.poolProps = pinned_device_pool_properties(device);
  params.bytesize = bytes;
  return params;
}

}  // namespace gilsan
