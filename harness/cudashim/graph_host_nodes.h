// Which host-function records each graph and executable graph holds, so that a graph launch can tell
// the observer which host functions it enqueued (one run per host node per launch), as the simulated
// driver does. Built from the calls that add host nodes (cuGraphAddHostNode, cuGraphAddNode, a
// capture of cuLaunchHostFunc), set their parameters, destroy nodes, clone graphs, nest them as child
// graphs, instantiate, update, launch and destroy them.
//
// Where the book cannot tell what the driver will run, it announces less, never more: an announced
// run that never begins is reported lost at exit, while a run that begins unannounced only cannot be
// reported lost. So parameters set on a node it never saw stop the replaced record's announcements
// (HostFunctionRecord::announced), parameters set on an executable graph's node it cannot place stop
// that executable graph's announcements until cuGraphExecUpdate gives it a known graph's nodes again.
// Thread-safe.
#pragma once

#include <cuda.h>

#include <utility>
#include <vector>

#include "harness/cudashim/host_function_record.h"

namespace gilsan::cudashim {

// `node` may be null (a captured launch: the driver does not say which node it became).
void graph_node_added(CUgraph graph, CUgraphNode node, HostFunctionRecord* record);
// Whether `node` is a host node of a graph the book holds (graph_node_replaced can follow it).
bool graph_node_known(CUgraphNode node);
// New parameters for `node` of whatever graph it belongs to (later instantiations use them). For a node
// the book does not know, `replaced` (the record its parameters held, null if not ours) stops being
// announced: some graph the book cannot name still holds it or no longer does.
void graph_node_replaced(CUgraphNode node, HostFunctionRecord* record, HostFunctionRecord* replaced);
// New parameters for `node` in `exec` only.
void exec_node_replaced(CUgraphExec exec, CUgraphNode node, HostFunctionRecord* record);
// The host nodes of `graph` whose handles the book knows, for matching them in a clone.
std::vector<CUgraphNode> known_host_nodes(CUgraph graph);
// `clone_nodes` pairs known_host_nodes(original) with the clone's nodes (null where the driver did not say).
void graph_cloned(CUgraph original, CUgraph clone, const std::vector<std::pair<CUgraphNode, CUgraphNode>>& clone_nodes);
void child_graph_added(CUgraph parent, CUgraph child);
void graph_instantiated(CUgraph graph, CUgraphExec exec);
// cuGraphExecUpdate succeeded: `exec` now runs `graph`'s host functions.
void exec_updated(CUgraphExec exec, CUgraph graph);
// cuGraphDestroyNode succeeded: later instantiations of its graph no longer run that node's host function
// (executable graphs made before keep theirs), and the driver may hand its handle to a new node. For a
// node the book does not know, `held_if_unknown` (the record its parameters held, null if not ours) stops
// being announced, as in graph_node_replaced.
void graph_node_destroyed(CUgraphNode node, HostFunctionRecord* held_if_unknown);
void graph_destroyed(CUgraph graph);
void exec_destroyed(CUgraphExec exec);
// The records a launch of `exec` announces (each runs once per launch).
std::vector<HostFunctionRecord*> records_of(CUgraphExec exec);

}  // namespace gilsan::cudashim
