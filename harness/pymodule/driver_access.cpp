#include "harness/pymodule/driver_access.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "harness/pymodule/module_errors.h"
#include "harness/pymodule/observation.h"
#include "harness/pymodule/python_ref.h"

namespace gilsan::pymodule {
namespace {

std::atomic<OpenedDriver*> g_opened{nullptr};
std::mutex g_open_mutex;
PyTypeObject* g_driver_info_type = nullptr;

PyStructSequence_Field kDriverInfoFields[] = {
    {"kind", "'real' or 'sim'"},
    {"reason", "why this driver was chosen"},
    {"version", "cuDriverGetVersion, e.g. 13000"},
    {"library", "the driver library that was loaded"},
    {"profile_source", "the simulated driver's profile (None for the real driver)"},
    {nullptr, nullptr},
};

PyStructSequence_Desc kDriverInfoDesc = {
    "gilsan.DriverInfo", "The driver the gilsan module talks to.", kDriverInfoFields, 5,
};

// Opens the driver; runs without the GIL. Returns an empty string or the error, and whether the
// error is the user's bad GILSAN_DRIVER value.
std::string open_driver_from_environment(bool& bad_request) {
  std::lock_guard lock(g_open_mutex);
  if (g_opened.load() != nullptr) return {};
  const char* requested = std::getenv("GILSAN_DRIVER");
  DriverRequest request = DriverRequest::Auto;
  try {
    if (requested != nullptr && *requested != '\0') request = parse_driver_request(requested);
  } catch (const std::invalid_argument& error) {
    bad_request = true;
    return std::string("GILSAN_DRIVER: ") + error.what();
  }
  try {
    DriverChoice choice = open_driver(request);
    auto opened = std::make_unique<OpenedDriver>();
    opened->kind = choice.kind;
    opened->reason = std::move(choice.reason);
    opened->library = choice.table->library_path();
    if (choice.table->cuDriverGetVersion(&opened->version) != CUDA_SUCCESS) opened->version = 0;
    if (choice.table->sim.profile_source != nullptr) {
      const char* source = choice.table->sim.profile_source();
      opened->profile_source = source != nullptr ? source : "";
    }
    opened->table = std::move(choice.table);
    // Never freed: the driver's threads run its code until the process ends.
    g_opened.store(opened.release());
    observe_driver_opened(g_opened.load()->kind == DriverKind::Sim, g_opened.load()->library.c_str());
    return {};
  } catch (const std::exception& error) {
    return error.what();
  }
}

}  // namespace

const OpenedDriver* driver_or_raise() {
  if (OpenedDriver* opened = g_opened.load(); opened != nullptr) return opened;
  std::string error;
  bool bad_request = false;
  Py_BEGIN_ALLOW_THREADS
  error = open_driver_from_environment(bad_request);
  Py_END_ALLOW_THREADS
  if (!error.empty()) {
    PyErr_SetString(bad_request ? PyExc_ValueError : driver_error_type(), error.c_str());
    return nullptr;
  }
  return g_opened.load();
}

const DriverTable* table_or_raise() {
  const OpenedDriver* opened = driver_or_raise();
  return opened != nullptr ? opened->table.get() : nullptr;
}

const DriverTable* opened_driver_table() {
  const OpenedDriver* opened = g_opened.load();
  return opened != nullptr ? opened->table.get() : nullptr;
}

PyObject* driver_info(PyObject*, PyObject*) {
  const OpenedDriver* opened = driver_or_raise();
  if (opened == nullptr) return nullptr;
  PyRef info(PyStructSequence_New(g_driver_info_type));
  if (!info) return nullptr;
  PyObject* values[] = {
      PyUnicode_FromString(to_string(opened->kind)),
      PyUnicode_FromString(opened->reason.c_str()),
      PyLong_FromLong(opened->version),
      PyUnicode_FromString(opened->library.c_str()),
      opened->profile_source.empty() ? Py_NewRef(Py_None) : PyUnicode_FromString(opened->profile_source.c_str()),
  };
  bool ok = true;
  for (Py_ssize_t i = 0; i < 5; ++i) {
    if (values[i] == nullptr) ok = false;
    PyStructSequence_SetItem(info.get(), i, values[i]);  // steals, null included
  }
  return ok ? info.release() : nullptr;
}

bool add_driver_info_type(PyObject* module) {
  g_driver_info_type = PyStructSequence_NewType(&kDriverInfoDesc);
  return g_driver_info_type != nullptr &&
         PyModule_AddObjectRef(module, "DriverInfo", reinterpret_cast<PyObject*>(g_driver_info_type)) == 0;
}

}  // namespace gilsan::pymodule
