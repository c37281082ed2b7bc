// The nodes of a gilsan.Graph: gilsan.GraphNode, and adding empty, work (spin kernel) and host nodes.
// A host node follows host_launch's rules: a Python callable (fn, args, kwargs owned by the graph through
// a user object, see graph_lifetime.h) or a native CUhostFn with user_data=.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "harness/pymodule/graph_object.h"

namespace gilsan::pymodule {

bool add_graph_node_type(PyObject* module);

// GIL held. True when every item of the tuple `nodes` is a GraphNode of `graph`; else TypeError or
// ValueError naming `who`.
bool check_dependencies(const GraphObject& graph, PyObject* nodes, const char* who);

// GIL held. Each adds a node that depends on the GraphNode tuple `dependencies` and returns it, or null
// with an exception set. add_work_node parses (ms); add_host_node parses (fn, *args, **kwargs).
PyObject* add_empty_node(GraphObject* graph, PyObject* dependencies);
PyObject* add_work_node(GraphObject* graph, PyObject* dependencies, PyObject* args, PyObject* kwargs);
PyObject* add_host_node(GraphObject* graph, PyObject* dependencies, PyObject* args, PyObject* kwargs);

}  // namespace gilsan::pymodule
