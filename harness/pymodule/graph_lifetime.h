// How a graph owns what its host nodes need.
//
// A graph may be instantiated and replayed any number of times, long after the Python call that added
// the node returned, so the payload's lifetime is tied to the graph with a CUDA user object: the graph
// (and every exec instantiated from it) holds a reference, and the driver runs the destructor once the
// last of them is gone and its launches completed. The destructor runs on a driver thread, so it hands
// the release to the interpreter (deferred_release.h) instead of taking the GIL.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include "harness/pymodule/host_payload.h"

namespace gilsan::pymodule {

// GIL held. Makes `graph` the only owner of `payload`. True on success; otherwise the payload is
// released (now or through the destructor) and an exception is set. `context` labels sticky errors.
bool tie_payload_to_graph_or_raise(CUgraph graph, HostPayload* payload, CUcontext context, CUuserObject* object);

// GIL held. The node that needed the payload could not be added: the graph gives its reference back,
// and the payload goes the destructor's way. Does not touch the exception in flight.
void untie_payload_from_graph(CUgraph graph, CUuserObject object);

// Python host nodes added to a graph being captured, remembered until the capture ends, when
// gilsan.Graph takes the count (for the exit drain: each launch of the exec runs that many).
void note_captured_python_node(CUgraph graph);
long long take_captured_python_nodes(CUgraph graph);

}  // namespace gilsan::pymodule
