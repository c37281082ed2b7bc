#include "harness/pymodule/graph_object.h"

#include <structmember.h>

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/graph_lifetime.h"
#include "harness/pymodule/graph_nodes.h"
#include "harness/pymodule/observation.h"
#include "harness/pymodule/python_ref.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

// graph.after(*nodes): adds nodes that depend on `nodes`.
struct NodeAdderObject {
  PyObject_HEAD
  PyObject* graph;         // strong: the adder is short-lived
  PyObject* dependencies;  // tuple of GraphNode
};

PyTypeObject* g_graph_type = nullptr;
PyTypeObject* g_adder_type = nullptr;
unsigned long long g_next_serial = 1;  // GIL held

GraphObject* open_graph_or_raise(PyObject* object, const char* who) {
  auto* graph = reinterpret_cast<GraphObject*>(object);
  if (graph->handle == nullptr) {
    PyErr_Format(PyExc_ValueError, "%s: the graph is closed", who);
    return nullptr;
  }
  return graph;
}

bool destroy_graph(GraphObject* self) {
  const CUgraph handle = self->handle;
  self->handle = nullptr;
  const DriverTable* table = opened_driver_table();
  if (handle == nullptr || table == nullptr) return true;
  observe_graph_destroyed(handle);
  return check_release(call_driver("cuGraphDestroy", Gil::Release, [&] { return table->cuGraphDestroy(handle); }),
                       "cuGraphDestroy");
}

PyObject* new_graph_object(CUgraph handle, long long python_host_nodes) {
  PyObject* object = g_graph_type->tp_alloc(g_graph_type, 0);
  if (object == nullptr) return nullptr;
  auto* self = reinterpret_cast<GraphObject*>(object);
  self->handle = handle;
  self->serial = g_next_serial++;
  self->python_host_nodes = python_host_nodes;
  return object;
}

// --- gilsan.Graph ---

PyObject* graph_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  if (!PyArg_ParseTuple(args, ":Graph") || (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Graph() takes no arguments");
    return nullptr;
  }
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  CUgraph handle = nullptr;
  if (!check_driver(call_driver("cuGraphCreate", Gil::Release, [&] { return table->cuGraphCreate(&handle, 0); }),
                    "cuGraphCreate"))
    return nullptr;
  PyObject* object = new_graph_object(handle, 0);
  if (object == nullptr) call_driver("cuGraphDestroy", Gil::Release, [&] { return table->cuGraphDestroy(handle); });
  return object;
}

void graph_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<GraphObject*>(object);
  if (self->weakrefs != nullptr) PyObject_ClearWeakRefs(object);
  if (self->handle != nullptr) {
    SavedException saved;
    if (!destroy_graph(self)) write_unraisable("while destroying a gilsan.Graph");
  }
  free_heap_object(object);
}

PyObject* graph_add_empty(PyObject* object, PyObject*) {
  GraphObject* self = open_graph_or_raise(object, "Graph.add_empty");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  PyRef none(PyTuple_New(0));
  return none ? add_empty_node(self, none.get()) : nullptr;
}

PyObject* graph_add_work(PyObject* object, PyObject* args, PyObject* kwargs) {
  GraphObject* self = open_graph_or_raise(object, "Graph.add_work");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  PyRef none(PyTuple_New(0));
  return none ? add_work_node(self, none.get(), args, kwargs) : nullptr;
}

PyObject* graph_add_host_node(PyObject* object, PyObject* args, PyObject* kwargs) {
  GraphObject* self = open_graph_or_raise(object, "Graph.add_host_node");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  PyRef none(PyTuple_New(0));
  return none ? add_host_node(self, none.get(), args, kwargs) : nullptr;
}

PyObject* graph_after(PyObject* object, PyObject* args) {
  GraphObject* self = open_graph_or_raise(object, "Graph.after");
  if (self == nullptr) return nullptr;
  if (!check_dependencies(*self, args, "Graph.after")) return nullptr;
  PyObject* adder_object = g_adder_type->tp_alloc(g_adder_type, 0);
  if (adder_object == nullptr) return nullptr;
  auto* adder = reinterpret_cast<NodeAdderObject*>(adder_object);
  adder->graph = Py_NewRef(object);
  adder->dependencies = Py_NewRef(args);
  return adder_object;
}

PyObject* graph_instantiate(PyObject* object, PyObject*) {
  GraphObject* self = open_graph_or_raise(object, "Graph.instantiate");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return nullptr;
  const DriverTable* table = opened_driver_table();
  const CUgraph handle = self->handle;
  CUgraphExec exec = nullptr;
  if (!check_driver(call_driver("cuGraphInstantiateWithFlags", Gil::Release,
                                [&] { return table->cuGraphInstantiateWithFlags(&exec, handle, 0); }),
                    "cuGraphInstantiateWithFlags", context))
    return nullptr;
  observe_graph_instantiated(handle, exec);
  return new_graph_exec(exec, self->python_host_nodes);
}

PyObject* graph_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!destroy_graph(reinterpret_cast<GraphObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* graph_enter(PyObject* object, PyObject*) {
  if (open_graph_or_raise(object, "Graph.__enter__") == nullptr) return nullptr;
  return Py_NewRef(object);
}

PyObject* graph_exit(PyObject* object, PyObject*) { return graph_close(object, nullptr); }

PyObject* graph_repr(PyObject* object) {
  auto* self = reinterpret_cast<GraphObject*>(object);
  if (self->handle == nullptr) return PyUnicode_FromString("<gilsan.Graph closed>");
  return PyUnicode_FromFormat("<gilsan.Graph handle=%p python_host_nodes=%lld>", self->handle,
                              self->python_host_nodes);
}

PyObject* graph_handle(PyObject* object, void*) {
  auto* self = reinterpret_cast<GraphObject*>(object);
  if (self->handle == nullptr) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(self->handle);
}

PyMethodDef kGraphMethods[] = {
    {"add_empty", graph_add_empty, METH_NOARGS, "add_empty(): an empty node (dependencies only)."},
    {"add_work", as_method(graph_add_work), METH_VARARGS | METH_KEYWORDS,
     "add_work(ms): a kernel node that keeps the device busy for ms milliseconds."},
    {"add_host_node", as_method(graph_add_host_node), METH_VARARGS | METH_KEYWORDS,
     "add_host_node(fn, *args, **kwargs): a host node calling fn(*args, **kwargs), or a native CUhostFn with "
     "user_data=, as in host_launch."},
    {"after", graph_after, METH_VARARGS, "after(*nodes): adds the next node with these dependencies."},
    {"instantiate", graph_instantiate, METH_NOARGS, "Instantiates the graph: a gilsan.GraphExec."},
    {"close", graph_close, METH_NOARGS, "Destroys the graph (execs made from it stay valid)."},
    {"__enter__", graph_enter, METH_NOARGS, nullptr},
    {"__exit__", graph_exit, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kGraphMembers[] = {
    {"python_host_nodes", T_LONGLONG, offsetof(GraphObject, python_host_nodes), READONLY,
     "how many Python host nodes the graph holds"},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(GraphObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kGraphGetSet[] = {
    {"handle", graph_handle, nullptr, "the CUgraph as an int (None once closed)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kGraphSlots[] = {
    {Py_tp_doc, const_cast<char*>("Graph(): a CUDA graph to build node by node (see also Stream.end_capture).")},
    {Py_tp_new, reinterpret_cast<void*>(graph_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(graph_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(graph_repr)},
    {Py_tp_methods, kGraphMethods},
    {Py_tp_members, kGraphMembers},
    {Py_tp_getset, kGraphGetSet},
    {0, nullptr},
};

PyType_Spec kGraphSpec = {"gilsan.Graph", sizeof(GraphObject), 0, Py_TPFLAGS_DEFAULT, kGraphSlots};

// --- graph.after(...) ---

void adder_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<NodeAdderObject*>(object);
  Py_XDECREF(self->graph);
  Py_XDECREF(self->dependencies);
  free_heap_object(object);
}

GraphObject* adder_graph_or_raise(PyObject* object, const char* who) {
  return open_graph_or_raise(reinterpret_cast<NodeAdderObject*>(object)->graph, who);
}

PyObject* adder_add_empty(PyObject* object, PyObject*) {
  GraphObject* graph = adder_graph_or_raise(object, "Graph.add_empty");
  if (graph == nullptr) return nullptr;
  run_deferred_releases();
  return add_empty_node(graph, reinterpret_cast<NodeAdderObject*>(object)->dependencies);
}

PyObject* adder_add_work(PyObject* object, PyObject* args, PyObject* kwargs) {
  GraphObject* graph = adder_graph_or_raise(object, "Graph.add_work");
  if (graph == nullptr) return nullptr;
  run_deferred_releases();
  return add_work_node(graph, reinterpret_cast<NodeAdderObject*>(object)->dependencies, args, kwargs);
}

PyObject* adder_add_host_node(PyObject* object, PyObject* args, PyObject* kwargs) {
  GraphObject* graph = adder_graph_or_raise(object, "Graph.add_host_node");
  if (graph == nullptr) return nullptr;
  run_deferred_releases();
  return add_host_node(graph, reinterpret_cast<NodeAdderObject*>(object)->dependencies, args, kwargs);
}

PyMethodDef kAdderMethods[] = {
    {"add_empty", adder_add_empty, METH_NOARGS, nullptr},
    {"add_work", as_method(adder_add_work), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"add_host_node", as_method(adder_add_host_node), METH_VARARGS | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot kAdderSlots[] = {
    {Py_tp_doc, const_cast<char*>("graph.after(*nodes): add_empty / add_work / add_host_node with dependencies.")},
    {Py_tp_dealloc, reinterpret_cast<void*>(adder_dealloc)},
    {Py_tp_methods, kAdderMethods},
    {0, nullptr},
};

PyType_Spec kAdderSpec = {"gilsan.GraphNodeAdder", sizeof(NodeAdderObject), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, kAdderSlots};

}  // namespace

bool add_graph_types(PyObject* module) {
  g_graph_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kGraphSpec));
  g_adder_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kAdderSpec));
  return g_graph_type != nullptr && g_adder_type != nullptr && add_graph_node_type(module) &&
         PyModule_AddObjectRef(module, "Graph", reinterpret_cast<PyObject*>(g_graph_type)) == 0 &&
         PyModule_AddObjectRef(module, "GraphNodeAdder", reinterpret_cast<PyObject*>(g_adder_type)) == 0 &&
         add_graph_exec_type(module);
}

PyObject* wrap_captured_graph(CUgraph graph) {
  PyObject* object = new_graph_object(graph, take_captured_python_nodes(graph));
  if (object == nullptr) release_captured_graph(graph);
  return object;
}

void release_captured_graph(CUgraph graph) {
  take_captured_python_nodes(graph);
  observe_graph_destroyed(graph);
  const DriverTable* table = opened_driver_table();
  if (table != nullptr) call_driver("cuGraphDestroy", Gil::Release, [&] { return table->cuGraphDestroy(graph); });
}

}  // namespace gilsan::pymodule
