#include "harness/pymodule/host_payload.h"

#include <cstdlib>
#include <string>

#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/observation.h"

namespace gilsan::pymodule {
namespace {

void report_unraisable(const HostPayload& payload) {
#if PY_VERSION_HEX >= 0x030D0000
  PyErr_FormatUnraisable("Exception ignored in %s host function %R", payload.origin, payload.callable);
#else
  // Printed by the default hook as "Exception ignored in <origin> host function: <repr of fn>".
  const std::string where = std::string("in ") + payload.origin + " host function";
  _PyErr_WriteUnraisableMsg(where.c_str(), payload.callable);
#endif
}

std::uint64_t next_serial() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

HostPayload* new_python_payload(PyObject* fn, PyObject* args, PyObject* kwargs, const char* origin) {
  auto* payload = new HostPayload();
  payload->serial = next_serial();
  payload->kind = HostPayload::Kind::PythonCall;
  payload->callable = Py_NewRef(fn);
  payload->args = Py_NewRef(args);
  payload->kwargs = Py_XNewRef(kwargs);
  payload->origin = origin;
  observe_payload_created(payload);
  stats().payloads_created.fetch_add(1);
  return payload;
}

HostPayload* new_native_payload(PyObject* keep_alive, void* user_data_copy) {
  auto* payload = new HostPayload();
  payload->serial = next_serial();
  payload->kind = HostPayload::Kind::NativeKeepAlive;
  payload->callable = Py_XNewRef(keep_alive);
  payload->user_data_copy = user_data_copy;
  payload->origin = "native";
  stats().payloads_created.fetch_add(1);
  return payload;
}

void call_payload(HostPayload* payload) {
  PyObject* result = PyObject_Call(payload->callable, payload->args, payload->kwargs);
  stats().host_functions_run.fetch_add(1);
  if (result == nullptr) {
    stats().host_functions_raised.fetch_add(1);
    observe_host_function_raised();
    report_unraisable(*payload);
  } else {
    Py_DECREF(result);
  }
}

void drop_python_references(HostPayload* payload) {
  if (payload->released) return;
  payload->released = true;
  // The copy is plain memory, but it belongs to the same release: free it here too.
  std::free(payload->user_data_copy);
  payload->user_data_copy = nullptr;
  // Clear the fields before the decrefs: a decref may run arbitrary Python (__del__).
  PyObject* callable = payload->callable;
  PyObject* args = payload->args;
  PyObject* kwargs = payload->kwargs;
  payload->callable = payload->args = payload->kwargs = nullptr;
  stats().payloads_released.fetch_add(1);
  Py_XDECREF(kwargs);
  Py_XDECREF(args);
  Py_XDECREF(callable);
}

void release_payload(HostPayload* payload) {
  drop_python_references(payload);
  delete payload;
}

void leak_payload(HostPayload* payload) {
  stats().releases_leaked.fetch_add(1);
  std::free(payload->user_data_copy);
  delete payload;
}

void free_payload_memory(HostPayload* payload) {
  std::free(payload->user_data_copy);
  delete payload;
}

}  // namespace gilsan::pymodule
