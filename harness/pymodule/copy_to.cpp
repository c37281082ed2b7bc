#include "harness/pymodule/copy_to.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "harness/pymodule/copy_host.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/graph_lifetime.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/host_copy_arguments.h"
#include "harness/pymodule/memory_objects.h"
#include "harness/pymodule/pinned_ring.h"
#include "harness/pymodule/stream_object.h"

namespace gilsan::pymodule {
namespace {

constexpr const char* kCopyTo = "copy_to";

struct DeviceSource {
  CUdeviceptr pointer = 0;
  Py_ssize_t length = -1;  // -1: an int address
  PyObject* owner = nullptr;  // borrowed: the DeviceBuffer, or null for an int address
};

bool parse_device_source(PyObject* object, DeviceSource& source) {
  if (is_device_buffer(object)) {
    CUcontext context = nullptr;
    source.owner = object;
    return device_buffer_memory_or_raise(object, kCopyTo, &source.pointer, &source.length, &context);
  }
  if (!PyLong_Check(object) || PyBool_Check(object)) {
    PyErr_Format(PyExc_TypeError, "%s: device_src must be a gilsan.DeviceBuffer or an int CUdeviceptr, not '%s'",
                 kCopyTo, Py_TYPE(object)->tp_name);
    return false;
  }
  const unsigned long long value = PyLong_AsUnsignedLongLong(object);
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%s: device_src address %R is negative or does not fit a CUdeviceptr", kCopyTo,
                 object);
    return false;
  }
  if (value == 0) {
    PyErr_Format(PyExc_ValueError, "%s: device_src is a null address", kCopyTo);
    return false;
  }
  source.pointer = static_cast<CUdeviceptr>(value);
  return true;
}

struct CopyPlan {
  const DriverTable* table = nullptr;
  CUstream stream = nullptr;
  CUcontext context = nullptr;
  char* destination = nullptr;
  CUdeviceptr source = 0;
  std::size_t size = 0;
  PyObject* keep_alive = nullptr;  // borrowed; null when nothing Python-owned is involved
};

// GIL held. One driver call of a copy; false with gilsan.CudaError set when it fails.
template <typename Call>
bool driver_step(const CopyPlan& plan, const char* entry_point, Call&& call) {
  return check_driver(call_driver(entry_point, Gil::Release, std::forward<Call>(call)), entry_point, plan.context);
}

bool direct_copy(const CopyPlan& plan) {
  if (!driver_step(plan, "cuMemcpyDtoHAsync", [&] {
        return plan.table->cuMemcpyDtoHAsync(plan.destination, plan.source, plan.size, plan.stream);
      }))
    return false;
  // A zero-byte host copy behind it holds dst (and the device buffer) until the stream got there.
  return plan.keep_alive == nullptr ||
         enqueue_host_copy_or_raise(plan.table, plan.stream, plan.context, HostCopy{}, plan.keep_alive);
}

// One chunk through slot k: wait until the slot is free, device copy into it on the caller's stream,
// then (ring's stream, after the device copy) the host copy out of it, which frees the slot again.
bool staged_chunk(const CopyPlan& plan, PinnedRingState& ring, std::size_t k, std::size_t offset, std::size_t length) {
  const DriverTable* table = plan.table;
  const CUstream stream = plan.stream;
  const CUstream host_stream = ring.host_stream;
  const CUevent filled = ring.slot_filled[k];
  const CUevent freed = ring.slot_free[k];
  char* slot = ring.slot(k);
  if (ring.slot_used[k] &&
      !driver_step(plan, "cuStreamWaitEvent", [&] { return table->cuStreamWaitEvent(stream, freed, 0); }))
    return false;
  if (!driver_step(plan, "cuMemcpyDtoHAsync",
                   [&] { return table->cuMemcpyDtoHAsync(slot, plan.source + offset, length, stream); }))
    return false;
  const HostCopy copy{plan.destination + offset, slot, length, ring.workers.get()};
  const bool host_copy_enqueued =
      driver_step(plan, "cuEventRecord", [&] { return table->cuEventRecord(filled, stream); }) &&
      driver_step(plan, "cuStreamWaitEvent", [&] { return table->cuStreamWaitEvent(host_stream, filled, 0); }) &&
      enqueue_host_copy_or_raise(table, host_stream, plan.context, copy, plan.keep_alive);
  // The slot is busy at least until its device copy is done (and, if enqueued, its host copy): mark that
  // point, so that its next user (and close()) waits for it. On the error path the exception already set
  // stays the one raised.
  const CUstream marks = host_copy_enqueued ? host_stream : stream;
  const CUresult marked =
      call_driver("cuEventRecord", Gil::Release, [&] { return table->cuEventRecord(freed, marks); });
  if (marked == CUDA_SUCCESS) ring.slot_used[k] = true;
  if (!host_copy_enqueued) return false;
  if (marked != CUDA_SUCCESS) {
    // Nothing marks when the slot is free again: wait for the host copy here rather than let a later
    // device copy overwrite a slot still being read.
    call_driver("cuStreamSynchronize", Gil::Release, [&] { return table->cuStreamSynchronize(host_stream); });
    return check_driver(marked, "cuEventRecord", plan.context);
  }
  return true;
}

bool staged_copy(const CopyPlan& plan, PinnedRingState& ring) {
  std::size_t last_slot = 0;
  for (std::size_t offset = 0; offset < plan.size; offset += ring.slot_bytes) {
    const std::size_t k = ring.next_slot;
    ring.next_slot = (k + 1) % ring.slots;
    if (!staged_chunk(plan, ring, k, offset, std::min(ring.slot_bytes, plan.size - offset))) return false;
    last_slot = k;
  }
  // Later work on the caller's stream waits for the last host copy (the ring's stream runs them in order).
  const CUevent done = ring.slot_free[last_slot];
  return driver_step(plan, "cuStreamWaitEvent", [&] { return plan.table->cuStreamWaitEvent(plan.stream, done, 0); });
}

// GIL held. Makes the graph an owner of `keep_alive` (dst's view, the device buffer, the ring's hold)
// before any node that uses them is captured, so that no node of the graph, even one captured before a
// later step failed, ever outlives what it touches. A user object needs no node: the graph and every
// exec made from it keep it until they are gone and their launches completed.
bool tie_keep_alive_to_graph_or_raise(const CopyPlan& plan, CUgraph graph) {
  if (plan.keep_alive == nullptr) return true;
  CUuserObject owner = nullptr;
  return tie_payload_to_graph_or_raise(graph, new_native_payload(plan.keep_alive, nullptr), plan.context, &owner);
}

// Under capture every chunk goes on the captured stream itself: device copy into a slot, then the host
// copy out of it, chunk after chunk. The ring's own stream takes no part (joining a capture from a
// second stream needs event record/wait nodes, which the simulated driver does not model), so a replay
// does not overlap the device and host halves; it needs no slot events either, since each slot's next
// device copy follows its host copy on the same stream. The host nodes hold keep_alive too: a copy
// that touches Python memory goes through the interpreter gate (copy_host.cpp).
bool captured_staged_copy(const CopyPlan& plan, const PinnedRingState& ring, CUgraph graph) {
  std::size_t k = 0;
  for (std::size_t offset = 0; offset < plan.size; offset += ring.slot_bytes) {
    const std::size_t length = std::min(ring.slot_bytes, plan.size - offset);
    char* slot = ring.slot(k);
    if (!driver_step(plan, "cuMemcpyDtoHAsync",
                     [&] { return plan.table->cuMemcpyDtoHAsync(slot, plan.source + offset, length, plan.stream); }))
      return false;
    const HostCopy copy{plan.destination + offset, slot, length, ring.workers.get()};
    if (!capture_host_copy_or_raise(plan.table, plan.stream, plan.context, graph, copy, plan.keep_alive)) return false;
    k = (k + 1) % ring.slots;
  }
  return true;
}

// Under capture without staging: one memcpy node (the real driver captures a copy into pageable memory
// as well).
bool captured_direct_copy(const CopyPlan& plan) {
  return driver_step(plan, "cuMemcpyDtoHAsync", [&] {
    return plan.table->cuMemcpyDtoHAsync(plan.destination, plan.source, plan.size, plan.stream);
  });
}

bool check_ring_context(const PinnedRingState& ring, CUcontext context) {
  if (ring.context == context) return true;
  PyErr_Format(PyExc_ValueError, "%s: the PinnedRing belongs to context %p, the stream to context %p", kCopyTo,
               ring.context, context);
  return false;
}

}  // namespace

PyObject* copy_to(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"dst", "device_src", "stream", "staging", "nbytes", nullptr};
  PyObject* dst = nullptr;
  PyObject* device_src = nullptr;
  PyObject* stream_object = nullptr;
  PyObject* staging = Py_None;
  PyObject* nbytes = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$OO:copy_to", const_cast<char**>(keywords), &dst, &device_src,
                                   &stream_object, &staging, &nbytes))
    return nullptr;
  run_deferred_releases();
  StreamObject* stream = open_stream_or_raise(stream_object, kCopyTo);
  if (stream == nullptr) return nullptr;
  HostSpan destination;
  DeviceSource source;
  if (!parse_host_span(kCopyTo, "dst", dst, true, destination) || !parse_device_source(device_src, source)) {
    return nullptr;
  }
  std::optional<RingUse> ring_use;
  PinnedRingState* ring = nullptr;
  if (staging != Py_None) {
    ring_use.emplace(staging, kCopyTo);
    if ((ring = ring_use->state()) == nullptr) return nullptr;
  }

  CopyPlan plan;
  const char* const roles[] = {"device_src", "dst"};
  const Py_ssize_t lengths[] = {source.length, destination.length};
  if (!resolve_copy_size(kCopyTo, nbytes, roles, lengths, 2, plan.size)) return nullptr;
  if (ring != nullptr &&
      !check_no_overlap(kCopyTo, "dst", destination.address, plan.size, "the PinnedRing's slots", ring->memory,
                        ring->slots * ring->slot_bytes))
    return nullptr;
  plan.table = table_or_raise();
  if (plan.table == nullptr || !stream_context_or_raise(stream, &plan.context)) return nullptr;
  if (ring != nullptr && !check_ring_context(*ring, plan.context)) return nullptr;
  plan.stream = stream->handle;
  plan.destination = destination.address;
  plan.source = source.pointer;

  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!check_driver(call_driver("cuStreamIsCapturing", Gil::Release,
                                [&] { return plan.table->cuStreamIsCapturing(plan.stream, &status); }),
                    "cuStreamIsCapturing", plan.context))
    return nullptr;
  if (plan.size == 0) Py_RETURN_NONE;

  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    PyRef keep_alive;
    if (!keep_alive_tuple(keep_alive, destination.view.get(), source.owner, ring != nullptr ? staging : nullptr))
      return nullptr;
    plan.keep_alive = keep_alive.get();
    const bool enqueued = ring != nullptr ? staged_copy(plan, *ring) : direct_copy(plan);
    if (!enqueued) return nullptr;
    Py_RETURN_NONE;
  }

  CUgraph graph = nullptr;
  if (!captured_graph_or_raise(plan.table, plan.stream, plan.context, &graph)) return nullptr;
  // The ring is held by the graph (not merely referenced), so that it cannot be closed under a replay.
  PyRef ring_hold(ring != nullptr ? new_ring_graph_hold(staging) : nullptr);
  if (ring != nullptr && !ring_hold) return nullptr;
  PyRef keep_alive;
  if (!keep_alive_tuple(keep_alive, destination.view.get(), source.owner, ring_hold.get())) return nullptr;
  plan.keep_alive = keep_alive.get();
  if (!tie_keep_alive_to_graph_or_raise(plan, graph)) return nullptr;
  const bool captured = ring != nullptr ? captured_staged_copy(plan, *ring, graph) : captured_direct_copy(plan);
  if (!captured) return nullptr;
  Py_RETURN_NONE;
}

}  // namespace gilsan::pymodule
