// The host side of gilsan's copies (copy_host, host_memcpy, copy_to): a bytes-like object or an int
// address, checked before anything is enqueued.
//
// A bytes-like object is held through a memoryview of it: the view keeps the exporter's Py_buffer (and
// with it, e.g., a bytearray's size and a PinnedBuffer's memory) until the view is dropped, which a
// payload does once the copy ran. An int address carries no length and keeps nothing alive.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstddef>

#include "harness/pymodule/python_ref.h"

namespace gilsan::pymodule {

struct HostSpan {
  char* address = nullptr;
  Py_ssize_t length = -1;  // -1: an int address, whose length the caller must give (nbytes=)
  PyRef view;              // the memoryview holding the buffer; null for an int address
};

// GIL held. `role` names the argument in messages ("dst", "src"). A destination (writable) must be a
// writable buffer. Buffers must be C-contiguous; addresses must be non-null ints that fit a pointer.
// False with TypeError / ValueError / OverflowError set.
bool parse_host_span(const char* who, const char* role, PyObject* object, bool writable, HostSpan& span);

// GIL held. `nbytes` (None or an int >= 0) or, when None, the first of the given lengths that is known;
// every known length must hold it. `roles`/`lengths` list the spans (a length of -1 is unknown).
bool resolve_copy_size(const char* who, PyObject* nbytes, const char* const* roles, const Py_ssize_t* lengths,
                       int count, std::size_t& size);

// GIL held. ValueError naming both roles when [first, +first_size) and [second, +second_size) overlap.
bool check_no_overlap(const char* who, const char* first_role, const char* first, std::size_t first_size,
                      const char* second_role, const char* second, std::size_t second_size);

// GIL held. `tuple` becomes a tuple of the non-null objects given (what a copy must keep alive), or
// null when all are null. False with an exception set when the tuple cannot be made.
bool keep_alive_tuple(PyRef& tuple, PyObject* first, PyObject* second, PyObject* third = nullptr);

}  // namespace gilsan::pymodule
