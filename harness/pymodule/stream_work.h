// Device work for scenarios: something that keeps a stream (or a graph node) busy for a given time,
// the way a spin kernel does on a GPU.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <cstddef>

namespace gilsan::pymodule {

// GIL held (released around the driver calls). False with an exception set on failure.
bool enqueue_device_work_or_raise(CUstream stream, CUcontext context, unsigned long long microseconds);

// GIL held. Adds a kernel node to `graph` that keeps the device busy for `microseconds`.
bool add_work_node_or_raise(CUgraph graph, const CUgraphNode* dependencies, std::size_t dependency_count,
                            unsigned long long microseconds, CUgraphNode* node);

// GIL held. The context is about to be destroyed: forget the kernels loaded in it (a later context may
// get the same handle).
void forget_device_work_kernels(CUcontext context);

}  // namespace gilsan::pymodule
