// Device and pinned host memory for scenarios.
//
//   d = gilsan.DeviceBuffer(nbytes)            # cuMemAlloc in the current context
//   d.copy_from_host(b"...")                   # synchronous, from any bytes-like object
//   d.copy_to_host(bytearray(n))               # synchronous, into any writable bytes-like object
//   p = gilsan.PinnedBuffer(nbytes)            # cuMemAllocHost; supports the buffer protocol
//   d.copy_to_host(p, stream=s)                # asynchronous: only with a PinnedBuffer, which must stay
//                                              # open until the stream has done the copy
//   d.memset(0, stream=None); d.free(); p.close()
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

bool add_memory_types(PyObject* module);

bool is_device_buffer(PyObject* object);
// GIL held. The memory of an open gilsan.DeviceBuffer; false with ValueError set once it is freed.
bool device_buffer_memory_or_raise(PyObject* object, const char* who, CUdeviceptr* pointer, Py_ssize_t* size,
                                   CUcontext* context);

}  // namespace gilsan::pymodule
