// gilsan.copy_host(stream, dst, src, nbytes=None): a host-to-host memcpy in stream order, done by a C
// host function on the driver's callback thread. It never takes the GIL and runs no Python, so it
// completes even while another thread holds the GIL (e.g. in stream.synchronize(hold_gil=True)).
//
// dst and src are bytes-like objects (dst writable) or int addresses; nbytes defaults to len(src) (or
// len(dst) when src is an address). Every check is made before anything is enqueued. The buffers are
// held (their Py_buffer, through a memoryview) until the copy ran, then dropped through the deferred-
// release path (deferred_release.h), since the callback thread must not take the GIL. On a capturing
// stream the copy becomes a host node that each replay runs, and the graph owns the buffers
// (graph_lifetime.h).
//
// gilsan.host_memcpy(dst, src, nbytes=None, *, threads=1): the same copy, synchronous, GIL released,
// split over `threads` native threads (HostCopyWorkers): the host-memory ceiling for benchmarks.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <cstddef>

#include "harness/driver/driver_table.h"
#include "harness/pymodule/host_copy_workers.h"

namespace gilsan::pymodule {

struct HostCopy {
  void* destination = nullptr;
  const void* source = nullptr;
  std::size_t size = 0;
  HostCopyWorkers* workers = nullptr;  // null: one memcpy on the callback thread
};

// GIL held. Enqueues `copy` on `stream`, which must not be capturing. `keep_alive` (may be null) is
// owned from now until the copy ran (or the enqueue failed, or the context died), whatever `copy`
// points into must live as long. False with an exception set.
bool enqueue_host_copy_or_raise(const DriverTable* table, CUstream stream, CUcontext context, const HostCopy& copy,
                                PyObject* keep_alive);

// GIL held. The graph that `stream` is capturing into (the stream must be capturing). False with
// gilsan.CudaError set.
bool captured_graph_or_raise(const DriverTable* table, CUstream stream, CUcontext context, CUgraph* graph);

// GIL held. `stream` captures into `graph`: adds `copy` as a host node that every launch of the graph
// runs again. The graph owns `keep_alive` (may be null) from now on, through a CUDA user object, and
// whatever `copy` points into must live as long. False with an exception set (the graph then gives
// keep_alive back).
bool capture_host_copy_or_raise(const DriverTable* table, CUstream stream, CUcontext context, CUgraph graph,
                                const HostCopy& copy, PyObject* keep_alive);

PyObject* copy_host(PyObject* module, PyObject* args, PyObject* kwargs);
PyObject* host_memcpy(PyObject* module, PyObject* args, PyObject* kwargs);

}  // namespace gilsan::pymodule
