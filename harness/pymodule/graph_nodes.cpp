#include "harness/pymodule/graph_nodes.h"

#include <vector>

#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/graph_lifetime.h"
#include "harness/pymodule/host_function_argument.h"
#include "harness/pymodule/host_trampolines.h"
#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/python_ref.h"
#include "harness/pymodule/stream_work.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

PyTypeObject* g_node_type = nullptr;

struct GraphNodeObject {
  PyObject_HEAD
  CUgraphNode handle;
  unsigned long long graph_serial;
  const char* kind;  // "empty", "work", "host"
};

bool dependencies_of(const GraphObject& graph, PyObject* nodes, const char* who, std::vector<CUgraphNode>& out) {
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(nodes); ++i) {
    PyObject* item = PyTuple_GET_ITEM(nodes, i);
    if (!PyObject_TypeCheck(item, g_node_type)) {
      PyErr_Format(PyExc_TypeError, "%s: dependencies must be gilsan.GraphNode objects, not '%s'", who,
                   Py_TYPE(item)->tp_name);
      return false;
    }
    const auto* node = reinterpret_cast<GraphNodeObject*>(item);
    if (node->graph_serial != graph.serial) {
      PyErr_Format(PyExc_ValueError, "%s: a dependency belongs to another graph", who);
      return false;
    }
    out.push_back(node->handle);
  }
  return true;
}

PyObject* new_node(const GraphObject& graph, CUgraphNode handle, const char* kind) {
  PyObject* object = g_node_type->tp_alloc(g_node_type, 0);
  if (object == nullptr) return nullptr;
  auto* node = reinterpret_cast<GraphNodeObject*>(object);
  node->handle = handle;
  node->graph_serial = graph.serial;
  node->kind = kind;
  return object;
}

void node_dealloc(PyObject* object) { free_heap_object(object); }

PyObject* node_repr(PyObject* object) {
  auto* self = reinterpret_cast<GraphNodeObject*>(object);
  return PyUnicode_FromFormat("<gilsan.GraphNode %s handle=%p>", self->kind, self->handle);
}

PyObject* node_handle(PyObject* object, void*) {
  return PyLong_FromVoidPtr(reinterpret_cast<GraphNodeObject*>(object)->handle);
}

PyObject* node_kind(PyObject* object, void*) {
  return PyUnicode_FromString(reinterpret_cast<GraphNodeObject*>(object)->kind);
}

PyGetSetDef kNodeGetSet[] = {
    {"handle", node_handle, nullptr, "the CUgraphNode as an int", nullptr},
    {"kind", node_kind, nullptr, "'empty', 'work' or 'host'", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kNodeSlots[] = {
    {Py_tp_doc, const_cast<char*>("A node of a gilsan.Graph; pass it to Graph.after() as a dependency.")},
    {Py_tp_dealloc, reinterpret_cast<void*>(node_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(node_repr)},
    {Py_tp_getset, kNodeGetSet},
    {0, nullptr},
};

PyType_Spec kNodeSpec = {"gilsan.GraphNode", sizeof(GraphNodeObject), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, kNodeSlots};

}  // namespace

bool add_graph_node_type(PyObject* module) {
  g_node_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kNodeSpec));
  return g_node_type != nullptr &&
         PyModule_AddObjectRef(module, "GraphNode", reinterpret_cast<PyObject*>(g_node_type)) == 0;
}

bool check_dependencies(const GraphObject& graph, PyObject* nodes, const char* who) {
  std::vector<CUgraphNode> checked;
  return dependencies_of(graph, nodes, who, checked);
}

PyObject* add_empty_node(GraphObject* graph, PyObject* dependencies_tuple) {
  std::vector<CUgraphNode> dependencies;
  if (!dependencies_of(*graph, dependencies_tuple, "Graph.add_empty", dependencies)) return nullptr;
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  CUgraphNode node = nullptr;
  const CUgraph handle = graph->handle;
  if (!check_driver(call_driver("cuGraphAddEmptyNode", Gil::Release, [&] {
                      return table->cuGraphAddEmptyNode(&node, handle, dependencies.data(), dependencies.size());
                    }),
                    "cuGraphAddEmptyNode"))
    return nullptr;
  return new_node(*graph, node, "empty");
}

PyObject* add_work_node(GraphObject* graph, PyObject* dependencies_tuple, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"ms", nullptr};
  double milliseconds = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "d:add_work", const_cast<char**>(keywords), &milliseconds))
    return nullptr;
  if (!(milliseconds >= 0) || milliseconds > 3.6e6) {
    PyErr_SetString(PyExc_ValueError, "Graph.add_work: ms must be between 0 and 3600000");
    return nullptr;
  }
  std::vector<CUgraphNode> dependencies;
  if (!dependencies_of(*graph, dependencies_tuple, "Graph.add_work", dependencies)) return nullptr;
  CUgraphNode node = nullptr;
  if (!add_work_node_or_raise(graph->handle, dependencies.data(), dependencies.size(),
                              static_cast<unsigned long long>(milliseconds * 1000.0), &node))
    return nullptr;
  return new_node(*graph, node, "work");
}

PyObject* add_host_node(GraphObject* graph, PyObject* dependencies_tuple, PyObject* args, PyObject* kwargs) {
  constexpr const char* who = "Graph.add_host_node";
  if (PyTuple_GET_SIZE(args) < 1) {
    PyErr_SetString(PyExc_TypeError, "Graph.add_host_node(fn, *args, **kwargs) needs fn");
    return nullptr;
  }
  std::vector<CUgraphNode> dependencies;
  if (!dependencies_of(*graph, dependencies_tuple, who, dependencies)) return nullptr;
  PyRef rest(PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args)));
  if (!rest) return nullptr;
  HostFunctionArgument fn;
  if (!parse_host_function(who, PyTuple_GET_ITEM(args, 0), TrailingArguments::from_tuple_and_dict(rest.get(), kwargs), fn))
    return nullptr;
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;

  HostPayload* payload = nullptr;
  CUDA_HOST_NODE_PARAMS params{fn.function, fn.user_data};
  if (!fn.native) {
    payload = new_python_payload(fn.object, fn.args, fn.kwargs, "gilsan.Graph.add_host_node");
    params = CUDA_HOST_NODE_PARAMS{&graph_python_trampoline, payload};
  } else if (fn.needs_keep_alive()) {
    payload = new_native_payload(fn.object, fn.user_data_copy.release());
  }
  const CUgraph handle = graph->handle;
  CUuserObject owner = nullptr;
  if (payload != nullptr && !tie_payload_to_graph_or_raise(handle, payload, nullptr, &owner)) return nullptr;
  CUgraphNode node = nullptr;
  const CUresult result = call_driver("cuGraphAddHostNode", Gil::Release, [&] {
    return table->cuGraphAddHostNode(&node, handle, dependencies.data(), dependencies.size(), &params);
  });
  if (result != CUDA_SUCCESS) {
    if (owner != nullptr) untie_payload_from_graph(handle, owner);
    check_driver(result, "cuGraphAddHostNode");
    return nullptr;
  }
  if (!fn.native) {
    observe_graph_host_node_added(handle, payload, nullptr);
    ++graph->python_host_nodes;
    stats().graph_host_nodes_added.fetch_add(1);
  }
  return new_node(*graph, node, "host");
}

}  // namespace gilsan::pymodule
