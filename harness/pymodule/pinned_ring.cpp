#include "harness/pymodule/pinned_ring.h"

#include <structmember.h>

#include <limits>
#include <utility>

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

struct PinnedRingObject {
  PyObject_HEAD
  PinnedRingState* state;  // null once closed
  std::mutex* use_lock;    // see RingUse; lives as long as the object, made by the first __init__
  Py_ssize_t graph_holds;  // live new_ring_graph_hold objects; touched only with the GIL held
};

constexpr const char* kGraphHoldName = "gilsan.PinnedRing graph hold";

// GIL held (a capsule's destructor runs in its dealloc).
void end_graph_hold(PyObject* capsule) {
  auto* ring = static_cast<PinnedRingObject*>(PyCapsule_GetPointer(capsule, kGraphHoldName));
  if (ring == nullptr) return;
  --ring->graph_holds;
  Py_DECREF(reinterpret_cast<PyObject*>(ring));
}

// GIL held. False with BufferError when graphs still replay copies through the slots. `who` names the
// refused call.
bool check_no_graph_holds(const PinnedRingObject& self, const char* who) {
  if (self.graph_holds == 0) return true;
  PyErr_Format(PyExc_BufferError,
               "%s: %zd captured copy_to call(s) in graphs still use the slots; close those graphs and every exec "
               "made from them first",
               who, self.graph_holds);
  return false;
}

// GIL held on entry and exit; waits for `lock` with the GIL released when another thread holds it.
void lock_releasing_gil(std::mutex& lock) {
  if (lock.try_lock()) return;
  Py_BEGIN_ALLOW_THREADS
  lock.lock();
  Py_END_ALLOW_THREADS
}

PyTypeObject* g_ring_type = nullptr;

// GIL held. Keeps the first failure (as the exception to raise) and goes on releasing the rest.
class FirstFailure {
 public:
  explicit FirstFailure(CUcontext context) : context_(context) {}
  void note(CUresult result, const char* entry_point) {
    if (result == CUDA_SUCCESS || failed_) return;
    failed_ = true;
    check_driver(result, entry_point, context_);
  }
  bool failed() const { return failed_; }

 private:
  CUcontext context_;
  bool failed_ = false;
};

// GIL held. Waits until no copy uses the slots any more, then frees everything the state owns. Whatever
// a failed allocation left null is skipped, so this also undoes a half-made ring.
bool release_ring(PinnedRingState* state) {
  std::unique_ptr<PinnedRingState> owned(state);
  const DriverTable* table = opened_driver_table();
  if (table == nullptr) return true;
  FirstFailure failure(state->context);
  // Each slot's last slot_free record follows the last device copy into it and the last host copy out.
  for (std::size_t k = 0; k < state->slot_used.size(); ++k) {
    if (!state->slot_used[k]) continue;
    const CUevent event = state->slot_free[k];
    failure.note(call_driver("cuEventSynchronize", Gil::Release, [&] { return table->cuEventSynchronize(event); }),
                 "cuEventSynchronize");
  }
  if (state->host_stream != nullptr) {
    const CUstream stream = state->host_stream;
    failure.note(call_driver("cuStreamSynchronize", Gil::Release, [&] { return table->cuStreamSynchronize(stream); }),
                 "cuStreamSynchronize");
    failure.note(call_driver("cuStreamDestroy", Gil::Release, [&] { return table->cuStreamDestroy(stream); }),
                 "cuStreamDestroy");
  }
  for (const std::vector<CUevent>* events : {&state->slot_filled, &state->slot_free}) {
    for (CUevent event : *events) {
      if (event == nullptr) continue;
      failure.note(call_driver("cuEventDestroy", Gil::Release, [&] { return table->cuEventDestroy(event); }),
                   "cuEventDestroy");
    }
  }
  if (state->memory != nullptr) {
    void* memory = state->memory;
    failure.note(call_driver("cuMemFreeHost", Gil::Release, [&] { return table->cuMemFreeHost(memory); }),
                 "cuMemFreeHost");
  }
  // The helpers are idle (every host copy ran); joining them needs no GIL.
  Py_BEGIN_ALLOW_THREADS
  state->workers.reset();
  Py_END_ALLOW_THREADS
  return !failure.failed();
}

bool parse_ring_arguments(PyObject* args, PyObject* kwargs, Py_ssize_t& slots, Py_ssize_t& slot_bytes,
                          int& host_threads) {
  static const char* keywords[] = {"slots", "slot_bytes", "host_threads", nullptr};
  host_threads = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nn|$i:PinnedRing", const_cast<char**>(keywords), &slots,
                                   &slot_bytes, &host_threads))
    return false;
  if (slots < 1 || slot_bytes < 1) {
    PyErr_Format(PyExc_ValueError, "PinnedRing: slots and slot_bytes must be positive, not %zd and %zd", slots,
                 slot_bytes);
    return false;
  }
  if (slot_bytes > std::numeric_limits<Py_ssize_t>::max() / slots) {
    PyErr_Format(PyExc_OverflowError, "PinnedRing: %zd slots of %zd bytes do not fit in memory", slots, slot_bytes);
    return false;
  }
  if (host_threads < 1 || host_threads > static_cast<int>(HostCopyWorkers::kMaxThreads)) {
    PyErr_Format(PyExc_ValueError, "PinnedRing: host_threads must be between 1 and %u, not %d",
                 HostCopyWorkers::kMaxThreads, host_threads);
    return false;
  }
  return true;
}

// GIL held. Allocates into `state`; on failure what was made stays in it for release_ring.
bool allocate_ring(PinnedRingState& state) {
  const DriverTable* table = opened_driver_table();
  const CUcontext context = state.context;
  void* memory = nullptr;
  const std::size_t total = state.slots * state.slot_bytes;
  if (!check_driver(call_driver("cuMemAllocHost", Gil::Release, [&] { return table->cuMemAllocHost(&memory, total); }),
                    "cuMemAllocHost", context))
    return false;
  state.memory = static_cast<char*>(memory);
  CUstream stream = nullptr;
  if (!check_driver(call_driver("cuStreamCreate", Gil::Release,
                                [&] { return table->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING); }),
                    "cuStreamCreate", context))
    return false;
  state.host_stream = stream;
  state.slot_filled.assign(state.slots, nullptr);
  state.slot_free.assign(state.slots, nullptr);
  state.slot_used.assign(state.slots, false);
  for (std::vector<CUevent>* events : {&state.slot_filled, &state.slot_free}) {
    for (CUevent& event : *events) {
      if (!check_driver(call_driver("cuEventCreate", Gil::Release,
                                    [&] { return table->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING); }),
                        "cuEventCreate", context))
        return false;
    }
  }
  if (state.host_threads > 1) {
    Py_BEGIN_ALLOW_THREADS
    state.workers = std::make_unique<HostCopyWorkers>(state.host_threads);
    Py_END_ALLOW_THREADS
  }
  return true;
}

int ring_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<PinnedRingObject*>(object);
  Py_ssize_t slots = 0;
  Py_ssize_t slot_bytes = 0;
  int host_threads = 1;
  if (!parse_ring_arguments(args, kwargs, slots, slot_bytes, host_threads)) return -1;
  if (self->use_lock == nullptr) self->use_lock = new std::mutex();
  run_deferred_releases();
  if (self->state != nullptr) {
    lock_releasing_gil(*self->use_lock);
    if (!check_no_graph_holds(*self, "PinnedRing.__init__")) {
      self->use_lock->unlock();
      return -1;
    }
    PinnedRingState* previous = std::exchange(self->state, nullptr);
    self->use_lock->unlock();
    if (!release_ring(previous)) return -1;
  }
  auto state = std::make_unique<PinnedRingState>();
  state->slots = static_cast<std::size_t>(slots);
  state->slot_bytes = static_cast<std::size_t>(slot_bytes);
  state->host_threads = static_cast<unsigned>(host_threads);
  if (!current_context_or_raise(&state->context)) return -1;
  if (!allocate_ring(*state)) {
    SavedException raised;
    release_ring(state.release());
    return -1;
  }
  self->state = state.release();
  return 0;
}

void ring_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<PinnedRingObject*>(object);
  if (self->state != nullptr) {
    SavedException saved;
    if (!release_ring(std::exchange(self->state, nullptr))) write_unraisable("while freeing a gilsan.PinnedRing");
  }
  delete self->use_lock;
  free_heap_object(object);
}

PyObject* ring_close(PyObject* object, PyObject*) {
  auto* self = reinterpret_cast<PinnedRingObject*>(object);
  run_deferred_releases();
  if (self->state == nullptr) Py_RETURN_NONE;
  // Waits for a copy_to that is enqueuing into the ring on another thread (which may be capturing).
  lock_releasing_gil(*self->use_lock);
  if (!check_no_graph_holds(*self, "PinnedRing.close")) {
    self->use_lock->unlock();
    return nullptr;
  }
  PinnedRingState* state = std::exchange(self->state, nullptr);
  self->use_lock->unlock();
  if (state != nullptr && !release_ring(state)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* ring_enter(PyObject* object, PyObject*) {
  if (reinterpret_cast<PinnedRingObject*>(object)->state == nullptr) {
    PyErr_SetString(PyExc_ValueError, "PinnedRing.__enter__: the PinnedRing is closed");
    return nullptr;
  }
  return Py_NewRef(object);
}

PyObject* ring_exit(PyObject* object, PyObject*) { return ring_close(object, nullptr); }

// The sizes stay readable after close(), so a closed ring still says what it was.
template <typename Field>
PyObject* ring_field(PyObject* object, Field field) {
  const PinnedRingState* state = reinterpret_cast<PinnedRingObject*>(object)->state;
  if (state == nullptr) Py_RETURN_NONE;
  return PyLong_FromSize_t(field(*state));
}

PyObject* ring_slots(PyObject* object, void*) {
  return ring_field(object, [](const PinnedRingState& s) { return s.slots; });
}
PyObject* ring_slot_bytes(PyObject* object, void*) {
  return ring_field(object, [](const PinnedRingState& s) { return s.slot_bytes; });
}
PyObject* ring_host_threads(PyObject* object, void*) {
  return ring_field(object, [](const PinnedRingState& s) { return static_cast<std::size_t>(s.host_threads); });
}
PyObject* ring_closed(PyObject* object, void*) {
  return PyBool_FromLong(reinterpret_cast<PinnedRingObject*>(object)->state == nullptr);
}

PyMethodDef kRingMethods[] = {
    {"close", ring_close, METH_NOARGS,
     "Waits for every copy that uses the slots, then frees them (and the ring's stream, events, threads)."},
    {"__enter__", ring_enter, METH_NOARGS, nullptr},
    {"__exit__", ring_exit, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kRingGetSet[] = {
    {"slots", ring_slots, nullptr, "number of slots (None once closed)", nullptr},
    {"slot_bytes", ring_slot_bytes, nullptr, "bytes per slot (None once closed)", nullptr},
    {"host_threads", ring_host_threads, nullptr, "threads that share each host copy (None once closed)", nullptr},
    {"closed", ring_closed, nullptr, "True once close() ran", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kRingSlots[] = {
    {Py_tp_doc, const_cast<char*>("PinnedRing(slots, slot_bytes, *, host_threads=1): pinned staging slots for "
                                  "gilsan.copy_to in the current context.")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(ring_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(ring_dealloc)},
    {Py_tp_methods, kRingMethods},
    {Py_tp_getset, kRingGetSet},
    {0, nullptr},
};

PyType_Spec kRingSpec = {"gilsan.PinnedRing", sizeof(PinnedRingObject), 0, Py_TPFLAGS_DEFAULT, kRingSlots};

}  // namespace

bool add_pinned_ring_type(PyObject* module) {
  g_ring_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kRingSpec));
  return g_ring_type != nullptr &&
         PyModule_AddObjectRef(module, "PinnedRing", reinterpret_cast<PyObject*>(g_ring_type)) == 0;
}

PyObject* new_ring_graph_hold(PyObject* ring_object) {
  auto* ring = reinterpret_cast<PinnedRingObject*>(ring_object);
  PyObject* hold = PyCapsule_New(ring, kGraphHoldName, &end_graph_hold);
  if (hold == nullptr) return nullptr;
  Py_INCREF(ring_object);
  ++ring->graph_holds;
  return hold;
}

RingUse::RingUse(PyObject* object, const char* who) {
  if (!PyObject_TypeCheck(object, g_ring_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a gilsan.PinnedRing, not '%s'", who, Py_TYPE(object)->tp_name);
    return;
  }
  auto* self = reinterpret_cast<PinnedRingObject*>(object);
  if (self->use_lock != nullptr) {
    lock_releasing_gil(*self->use_lock);
    lock_ = self->use_lock;
    state_ = self->state;  // read under the lock: close() on another thread may just have taken it
  }
  if (state_ == nullptr) PyErr_Format(PyExc_ValueError, "%s: the PinnedRing is closed", who);
}

RingUse::~RingUse() {
  if (lock_ != nullptr) lock_->unlock();
}

}  // namespace gilsan::pymodule
