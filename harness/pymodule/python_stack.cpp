#include "harness/pymodule/python_stack.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace gilsan::pymodule {
namespace {

// The UTF-8 text of `text`, or "?" (a str with lone surrogates: its error is cleared).
const char* utf8_or_unknown(PyObject* text) {
  const char* utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
  if (utf8 == nullptr) PyErr_Clear();
  return utf8 != nullptr ? utf8 : "?";
}

}  // namespace

int write_python_stack(char* buffer, unsigned long size, int max_frames) {
  if (size == 0) return 0;
  buffer[0] = '\0';
  // Clearing an error of our own must not clear the caller's: with one set, write nothing.
  if (PyErr_Occurred() != nullptr) return 0;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  unsigned long used = 0;
  int written = 0;
  while (frame != nullptr && written < max_frames && used + 1 < size) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = utf8_or_unknown(code->co_filename);
    const char* base = std::strrchr(file, '/');
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* name = code->co_qualname;
#else
    PyObject* name = code->co_name;
#endif
    const int length = std::snprintf(buffer + used, size - used, "%s:%d %s\n", base != nullptr ? base + 1 : file,
                                     PyFrame_GetLineNumber(frame), utf8_or_unknown(name));
    Py_DECREF(code);
    if (length < 0) break;
    used = std::min<unsigned long>(used + static_cast<unsigned long>(length), size - 1);
    ++written;
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  return written;
}

}  // namespace gilsan::pymodule
