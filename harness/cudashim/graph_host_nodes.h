// Which host-function records each graph and executable graph holds, so that a graph launch can tell
// the observer which host functions it enqueued (one run per host node per launch), as the simulated
// driver does. Built from the calls that add host nodes (cuGraphAddHostNode, cuGraphAddNode, a
// capture of cuLaunchHostFunc), set their parameters, clone graphs, nest them as child graphs, and
// instantiate, launch and destroy them. Not followed: cuGraphExecUpdate and nodes added through
// entry points gilsan does not wrap; their runs are then seen begin without an enqueue, which only
// means they can never be reported lost. Thread-safe.
#pragma once

#include <cuda.h>

#include <vector>

#include "harness/cudashim/host_function_record.h"

namespace gilsan::cudashim {

// `node` may be null (a captured launch: the driver does not say which node it became).
void graph_node_added(CUgraph graph, CUgraphNode node, HostFunctionRecord* record);
// New parameters for `node` of whatever graph it belongs to (later instantiations use them).
void graph_node_replaced(CUgraphNode node, HostFunctionRecord* record);
// New parameters for `node` in `exec` only.
void exec_node_replaced(CUgraphExec exec, CUgraphNode node, HostFunctionRecord* record);
void graph_cloned(CUgraph original, CUgraph clone);
void child_graph_added(CUgraph parent, CUgraph child);
void graph_instantiated(CUgraph graph, CUgraphExec exec);
void graph_destroyed(CUgraph graph);
void exec_destroyed(CUgraphExec exec);
// The records a launch of `exec` runs (each once).
std::vector<HostFunctionRecord*> records_of(CUgraphExec exec);

}  // namespace gilsan::cudashim
