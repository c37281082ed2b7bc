// What a call gave after `fn` (host_launch(stream, fn, *args, **kwargs), Graph.add_host_node(fn, ...)),
// read where the call put it: a vectorcall's array and keyword names, or a tuple and a dict.
//
// Why: host_launch is called in tight loops, and building an argument tuple, a keyword dict and the
// Python string "user_data" on every call cost as much as the driver's own cuLaunchHostFunc. A native
// host function needs none of them; only a Python callable's payload gets a tuple and a dict, made once.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace gilsan::pymodule {

class TrailingArguments {
 public:
  // `positional`: the `count` positional arguments after fn; `keyword_names`: the vectorcall's tuple of
  // keyword names (or null), whose values follow the positional ones in `positional`.
  static TrailingArguments from_vectorcall(PyObject* const* positional, Py_ssize_t count, PyObject* keyword_names);
  // `tuple`: the positional arguments after fn; `dict`: the keyword arguments (or null).
  static TrailingArguments from_tuple_and_dict(PyObject* tuple, PyObject* dict);

  Py_ssize_t positional_count() const { return positional_count_; }
  Py_ssize_t keyword_count() const;
  // The keyword argument `name` (borrowed), or null when the call did not give it. Sets no error.
  PyObject* keyword(const char* name) const;
  // New references, null with an error set. new_keyword_dict() is also null, with no error, when the call
  // gave no keyword arguments.
  PyObject* new_positional_tuple() const;
  PyObject* new_keyword_dict() const;

 private:
  PyObject* const* positional_ = nullptr;
  Py_ssize_t positional_count_ = 0;
  PyObject* keyword_names_ = nullptr;  // vectorcall
  PyObject* tuple_ = nullptr;          // tuple and dict
  PyObject* dict_ = nullptr;
};

}  // namespace gilsan::pymodule
