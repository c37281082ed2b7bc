// gilsan.Graph: a CUDA graph built node by node, or captured from a stream (Stream.end_capture).
//
//   g = gilsan.Graph()
//   a = g.add_work(5)                      # a spin-kernel node
//   h = g.after(a).add_host_node(fn, 1, key="v")
//   g.after(h).add_empty()
//   x = g.instantiate(); x.launch(stream); x.close(); g.close()
//
// Host nodes follow host_launch's lifetime rules: the graph owns fn/args/kwargs through a CUDA user
// object, so they are released once the graph and every exec made from it are gone and their launches
// completed. Dependencies are given with graph.after(*nodes), so that every keyword of add_host_node
// goes to fn.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

struct GraphObject {
  PyObject_HEAD
  CUgraph handle;
  unsigned long long serial;     // tells this graph's nodes from another's, even at a reused address
  long long python_host_nodes;   // each launch of an exec of this graph runs that many Python host nodes
  PyObject* weakrefs;
};

bool add_graph_types(PyObject* module);

// GIL held. A gilsan.Graph that owns a graph just captured from a stream. Null with an exception set.
PyObject* wrap_captured_graph(CUgraph graph);
// GIL held. Destroys a graph handed back by a failed capture (its host nodes' payloads go with it).
void release_captured_graph(CUgraph graph);

// gilsan.GraphExec lives in graph_exec_object.cpp.
bool add_graph_exec_type(PyObject* module);
PyObject* new_graph_exec(CUgraphExec exec, long long python_host_nodes);

}  // namespace gilsan::pymodule
