// gilsan.PinnedRing(slots, slot_bytes, *, host_threads=1): page-locked staging memory for copy_to.
//
// A device-to-host copy into pageable memory is slow (the driver stages it itself, one piece at a time).
// copy_to instead copies chunk by chunk into the ring's pinned slots (cuMemcpyDtoHAsync on the caller's
// stream) and from each slot into the destination with a C host function (copy_host) on the ring's own
// stream, so that the device copy of one chunk overlaps the host copy of the one before. Events order
// the two streams: a slot's host copy waits for its device copy (slot_filled), and the slot is written
// again only after its host copy ran (slot_free). host_threads > 1 splits each host copy over that many
// native threads (HostCopyWorkers).
//
// The ring belongs to the context current when it was made. close() (or the object's end) waits for
// every copy that uses the slots, then frees them; copy_to keeps the ring alive until its copies ran.
//
// A copy_to captured into a graph uses the slots on every replay, in the captured stream's order and
// without the ring's events, so the graph holds the ring (new_ring_graph_hold) for as long as it or an
// exec made from it exists: meanwhile close() and a second __init__ are refused with BufferError (there
// is no way to wait for a graph that may still be launched), as PinnedBuffer.close() is while views exist.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "harness/pymodule/host_copy_workers.h"

namespace gilsan::pymodule {

struct PinnedRingState {
  char* memory = nullptr;  // slots * slot_bytes bytes from cuMemAllocHost
  std::size_t slots = 0;
  std::size_t slot_bytes = 0;
  unsigned host_threads = 1;
  CUcontext context = nullptr;
  CUstream host_stream = nullptr;
  std::vector<CUevent> slot_filled;  // recorded on the caller's stream after the device-to-slot copy
  std::vector<CUevent> slot_free;    // recorded after the slot's host copy: the slot may be written again
  std::vector<bool> slot_used;       // slot_free has been recorded at least once
  std::unique_ptr<HostCopyWorkers> workers;  // null when host_threads == 1
  std::size_t next_slot = 0;                 // slots are taken in turn, across copy_to calls

  char* slot(std::size_t index) const { return memory + index * slot_bytes; }
};

bool add_pinned_ring_type(PyObject* module);

// GIL held. `ring_object` is an open gilsan.PinnedRing. A new reference to an object that keeps the
// ring alive and counts as one graph's use of its slots until it is dropped (with the GIL); null with
// an exception set.
PyObject* new_ring_graph_hold(PyObject* ring_object);

// Exclusive use of a ring while a copy_to enqueues its chunks, so that the chunks of calls from two
// threads never interleave on the slots (call_driver releases the GIL between them) and close() cannot
// free the ring under them. The lock is taken with the GIL released, so no thread ever waits for it
// while holding the GIL. GIL held on construction and destruction.
class RingUse {
 public:
  // state() is the open ring's state, or null with TypeError (not a ring) or ValueError (closed) set.
  RingUse(PyObject* object, const char* who);
  ~RingUse();
  RingUse(const RingUse&) = delete;
  RingUse& operator=(const RingUse&) = delete;

  PinnedRingState* state() const { return state_; }

 private:
  std::mutex* lock_ = nullptr;
  PinnedRingState* state_ = nullptr;
};

}  // namespace gilsan::pymodule
