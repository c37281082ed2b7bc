// gilsan.GraphExec: an instantiated graph. It holds its own references to the graph's user objects, so
// the host nodes' payloads outlive the Graph until the exec is closed and its launches completed.
#include "harness/pymodule/graph_object.h"

#include <structmember.h>

#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

struct GraphExecObject {
  PyObject_HEAD
  CUgraphExec handle;
  long long python_host_nodes;
  unsigned long long launches;
};

PyTypeObject* g_exec_type = nullptr;

bool destroy_exec(GraphExecObject* self) {
  const CUgraphExec handle = self->handle;
  self->handle = nullptr;
  const DriverTable* table = opened_driver_table();
  if (handle == nullptr || table == nullptr) return true;
  observe_graph_exec_destroyed(handle);
  return check_release(call_driver("cuGraphExecDestroy", Gil::Release, [&] { return table->cuGraphExecDestroy(handle); }),
                       "cuGraphExecDestroy");
}

void exec_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<GraphExecObject*>(object);
  if (self->handle != nullptr) {
    SavedException saved;
    if (!destroy_exec(self)) write_unraisable("while destroying a gilsan.GraphExec");
  }
  free_heap_object(object);
}

PyObject* exec_launch(PyObject* object, PyObject* stream_object) {
  auto* self = reinterpret_cast<GraphExecObject*>(object);
  if (self->handle == nullptr) {
    PyErr_SetString(PyExc_ValueError, "GraphExec.launch: the exec is closed");
    return nullptr;
  }
  StreamObject* stream = open_stream_or_raise(stream_object, "GraphExec.launch");
  if (stream == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUgraphExec handle = self->handle;
  const CUstream on = stream->handle;
  graph_host_runs_expected(self->python_host_nodes);
  observe_graph_host_functions_enqueued(handle, self->python_host_nodes, on, stream->context);
  const CUresult result = call_driver("cuGraphLaunch", Gil::Release, DriverCallTarget{stream->context, on, nullptr},
                                      [&] { return table->cuGraphLaunch(handle, on); });
  if (result != CUDA_SUCCESS) {
    graph_host_runs_expected(-self->python_host_nodes);
    observe_graph_host_functions_dropped(handle, self->python_host_nodes);
    check_driver(result, "cuGraphLaunch", stream->context);
    return nullptr;
  }
  ++self->launches;
  Py_RETURN_NONE;
}

PyObject* exec_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!destroy_exec(reinterpret_cast<GraphExecObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* exec_enter(PyObject* object, PyObject*) { return Py_NewRef(object); }
PyObject* exec_exit(PyObject* object, PyObject*) { return exec_close(object, nullptr); }

PyObject* exec_repr(PyObject* object) {
  auto* self = reinterpret_cast<GraphExecObject*>(object);
  if (self->handle == nullptr) return PyUnicode_FromString("<gilsan.GraphExec closed>");
  return PyUnicode_FromFormat("<gilsan.GraphExec handle=%p launches=%llu>", self->handle, self->launches);
}

PyObject* exec_handle(PyObject* object, void*) {
  auto* self = reinterpret_cast<GraphExecObject*>(object);
  if (self->handle == nullptr) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(self->handle);
}

PyMethodDef kExecMethods[] = {
    {"launch", exec_launch, METH_O, "launch(stream): launches the graph on the stream."},
    {"close", exec_close, METH_NOARGS, "Destroys the exec; launches in flight still complete."},
    {"__enter__", exec_enter, METH_NOARGS, nullptr},
    {"__exit__", exec_exit, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kExecMembers[] = {
    {"launches", T_ULONGLONG, offsetof(GraphExecObject, launches), READONLY, "launches made through this object"},
    {"python_host_nodes", T_LONGLONG, offsetof(GraphExecObject, python_host_nodes), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kExecGetSet[] = {
    {"handle", exec_handle, nullptr, "the CUgraphExec as an int (None once closed)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kExecSlots[] = {
    {Py_tp_doc, const_cast<char*>("An instantiated gilsan.Graph (Graph.instantiate()).")},
    {Py_tp_dealloc, reinterpret_cast<void*>(exec_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(exec_repr)},
    {Py_tp_methods, kExecMethods},
    {Py_tp_members, kExecMembers},
    {Py_tp_getset, kExecGetSet},
    {0, nullptr},
};

PyType_Spec kExecSpec = {"gilsan.GraphExec", sizeof(GraphExecObject), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, kExecSlots};

}  // namespace

bool add_graph_exec_type(PyObject* module) {
  g_exec_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kExecSpec));
  return g_exec_type != nullptr &&
         PyModule_AddObjectRef(module, "GraphExec", reinterpret_cast<PyObject*>(g_exec_type)) == 0;
}

PyObject* new_graph_exec(CUgraphExec exec, long long python_host_nodes) {
  PyObject* object = g_exec_type->tp_alloc(g_exec_type, 0);
  if (object == nullptr) {
    observe_graph_exec_destroyed(exec);
    const DriverTable* table = opened_driver_table();
    if (table != nullptr) call_driver("cuGraphExecDestroy", Gil::Release, [&] { return table->cuGraphExecDestroy(exec); });
    return nullptr;
  }
  auto* self = reinterpret_cast<GraphExecObject*>(object);
  self->handle = exec;
  self->python_host_nodes = python_host_nodes;
  return object;
}

}  // namespace gilsan::pymodule
