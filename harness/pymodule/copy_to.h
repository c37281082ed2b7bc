// gilsan.copy_to(dst, device_src, stream, *, staging=None, nbytes=None): device memory into any
// writable host buffer, in stream order.
//
// device_src is a gilsan.DeviceBuffer or an int CUdeviceptr; dst a writable bytes-like object or an int
// address. nbytes defaults to the DeviceBuffer's size (or, for an int device address, len(dst)).
//   staging=None           one cuMemcpyDtoHAsync on the stream (into pageable memory the driver stages
//                          it itself);
//   staging=PinnedRing     per chunk of slot_bytes: cuMemcpyDtoHAsync into a slot on the stream, then a
//                          copy_host of the slot into dst on the ring's stream (see pinned_ring.h).
// Either way later work on `stream` runs after dst is complete, and dst, device_src and the ring are
// kept alive until then. Every argument check is made before anything is enqueued.
//
// On a capturing stream the copy is captured (nothing is copied at capture time; every launch of the
// graph copies what the device memory holds then): staged, each chunk's device copy and host copy go
// on the captured stream itself, in turn, since the ring's stream cannot join the capture. The graph
// owns dst and device_src and holds the ring, which cannot be closed meanwhile (pinned_ring.h).
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace gilsan::pymodule {

PyObject* copy_to(PyObject* module, PyObject* args, PyObject* kwargs);

}  // namespace gilsan::pymodule
