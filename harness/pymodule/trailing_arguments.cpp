#include "harness/pymodule/trailing_arguments.h"

namespace gilsan::pymodule {

TrailingArguments TrailingArguments::from_vectorcall(PyObject* const* positional, Py_ssize_t count,
                                                     PyObject* keyword_names) {
  TrailingArguments arguments;
  arguments.positional_ = positional;
  arguments.positional_count_ = count;
  arguments.keyword_names_ = keyword_names;
  return arguments;
}

TrailingArguments TrailingArguments::from_tuple_and_dict(PyObject* tuple, PyObject* dict) {
  TrailingArguments arguments;
  arguments.tuple_ = tuple;
  arguments.positional_count_ = PyTuple_GET_SIZE(tuple);
  arguments.dict_ = dict;
  return arguments;
}

Py_ssize_t TrailingArguments::keyword_count() const {
  if (tuple_ != nullptr) return dict_ != nullptr ? PyDict_GET_SIZE(dict_) : 0;
  return keyword_names_ != nullptr ? PyTuple_GET_SIZE(keyword_names_) : 0;
}

PyObject* TrailingArguments::keyword(const char* name) const {
  // Compared in place: no Python string is made for `name`. Keyword names are always str.
  if (tuple_ != nullptr) {
    if (dict_ == nullptr) return nullptr;
    Py_ssize_t at = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(dict_, &at, &key, &value))
      if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, name) == 0) return value;
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < keyword_count(); ++i)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(keyword_names_, i), name) == 0)
      return positional_[positional_count_ + i];
  return nullptr;
}

PyObject* TrailingArguments::new_positional_tuple() const {
  if (tuple_ != nullptr) return Py_NewRef(tuple_);
  PyObject* tuple = PyTuple_New(positional_count_);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < positional_count_; ++i) PyTuple_SET_ITEM(tuple, i, Py_NewRef(positional_[i]));
  return tuple;
}

PyObject* TrailingArguments::new_keyword_dict() const {
  if (tuple_ != nullptr) return dict_ != nullptr ? PyDict_Copy(dict_) : nullptr;
  if (keyword_count() == 0) return nullptr;
  PyObject* dict = PyDict_New();
  if (dict == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < keyword_count(); ++i) {
    if (PyDict_SetItem(dict, PyTuple_GET_ITEM(keyword_names_, i), positional_[positional_count_ + i]) != 0) {
      Py_DECREF(dict);
      return nullptr;
    }
  }
  return dict;
}

}  // namespace gilsan::pymodule
