// Recipes for graph memory nodes and for reading and editing a graph's structure.
#include "harness/probe/call_recipe.h"
#include "harness/driver/device_memory_properties.h"

namespace gilsan::probe {
void add_graph_structure_recipes(std::vector<CallRecipe>& out) {
  using F = const ProbeFixture&;
  using S = RecipeState&;
  // A graph of one host node, which the queries below read.
  auto graph_with_host_node = [](F f, S s) {
    s.graph = f.new_graph();
    s.node = f.add_host_node(s.graph);
  };

  out.push_back({.id = "cuGraphAddNode",
                 .description = "adds an empty node to a graph with the generic node parameters",
                 .prepare = [](F f, S s) { s.graph = f.new_graph(); },
                 .call = [](F f, S s) {
                   CUgraphNodeParams params{};
                   params.type = CU_GRAPH_NODE_TYPE_EMPTY;
                   return f.driver.cuGraphAddNode(&s.node, s.graph, nullptr, nullptr, 0, &params);
                 }});
  out.push_back({.id = "cuGraphHostNodeGetParams",
                 .description = "reads a host node's function and argument",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   CUDA_HOST_NODE_PARAMS params{};
                   return f.driver.cuGraphHostNodeGetParams(s.node, &params);
                 }});
  out.push_back({.id = "cuGraphConditionalHandleCreate",
                 .description = "creates a handle for a graph's conditional nodes",
                 .prepare = [](F f, S s) { s.graph = f.new_graph(); },
                 .call = [](F f, S s) {
                   CUgraphConditionalHandle handle = 0;
                   return f.driver.cuGraphConditionalHandleCreate(&handle, s.graph, f.context, 0, 0);
                 }});
  out.push_back({.id = "cuGraphAddChildGraphNode",
                 .description = "adds a copy of a graph of one host node as a node of another graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.second_graph = f.new_graph();
                   f.add_host_node(s.second_graph);
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuGraphAddChildGraphNode(&s.node, s.graph, nullptr, 0, s.second_graph);
                 }});
  out.push_back({.id = "cuGraphChildGraphNodeGetGraph",
                 .description = "reads the graph a child-graph node holds",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.second_graph = f.new_graph();
                   f.check("cuGraphAddChildGraphNode",
                           f.driver.cuGraphAddChildGraphNode(&s.node, s.graph, nullptr, 0, s.second_graph));
                 },
                 .call = [](F f, S s) {
                   CUgraph held = nullptr;
                   return f.driver.cuGraphChildGraphNodeGetGraph(s.node, &held);
                 }});
  out.push_back({.id = "cuGraphClone",
                 .description = "copies a graph of one host node",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) { return f.driver.cuGraphClone(&s.second_graph, s.graph); }});
  out.push_back({.id = "cuGraphNodeFindInClone",
                 .description = "finds a graph's host node in a copy of the graph made in preparation",
                 .prepare = [=](F f, S s) {
                   graph_with_host_node(f, s);
                   f.check("cuGraphClone", f.driver.cuGraphClone(&s.second_graph, s.graph));
                 },
                 .call = [](F f, S s) {
                   CUgraphNode in_clone = nullptr;
                   return f.driver.cuGraphNodeFindInClone(&in_clone, s.node, s.second_graph);
                 }});
  out.push_back({.id = "cuGraphAddMemAllocNode",
                 .description = "adds a 4 KiB allocation node (device memory) to a graph",
                 .prepare = [](F f, S s) { s.graph = f.new_graph(); },
                 .call = [](F f, S s) {
                   CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(f.device, 4096);
                   return f.driver.cuGraphAddMemAllocNode(&s.node, s.graph, nullptr, 0, &params);
                 }});
  out.push_back({.id = "cuGraphAddMemFreeNode",
                 .description = "adds a free node for the graph's own 4 KiB allocation, after its allocation node",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(f.device, 4096);
                   f.check("cuGraphAddMemAllocNode", f.driver.cuGraphAddMemAllocNode(&s.node, s.graph, nullptr, 0, &params));
                   s.second_device_memory = params.dptr;
                 },
                 .call = [](F f, S s) {
                   CUgraphNode free_node = nullptr;
                   return f.driver.cuGraphAddMemFreeNode(&free_node, s.graph, &s.node, 1, s.second_device_memory);
                 }});
  out.push_back({.id = "cuGraphMemAllocNodeGetParams",
                 .description = "reads back an allocation node's parameters",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   CUDA_MEM_ALLOC_NODE_PARAMS params = graph_allocation_params(f.device, 4096);
                   f.check("cuGraphAddMemAllocNode", f.driver.cuGraphAddMemAllocNode(&s.node, s.graph, nullptr, 0, &params));
                 },
                 .call = [](F f, S s) {
                   CUDA_MEM_ALLOC_NODE_PARAMS params{};
                   return f.driver.cuGraphMemAllocNodeGetParams(s.node, &params);
                 }});
  out.push_back({.id = "cuGraphAddEventRecordNode",
                 .description = "adds a node recording an event to a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.event = f.new_event();
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuGraphAddEventRecordNode(&s.node, s.graph, nullptr, 0, s.event);
                 }});
  out.push_back({.id = "cuGraphAddEventWaitNode",
                 .description = "adds a node waiting for an event to a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.event = f.new_event();
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuGraphAddEventWaitNode(&s.node, s.graph, nullptr, 0, s.event);
                 }});
  out.push_back({.id = "cuGraphGetNodes",
                 .description = "counts a graph's nodes",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   size_t count = 0;
                   return f.driver.cuGraphGetNodes(s.graph, nullptr, &count);
                 }});
  out.push_back({.id = "cuGraphGetRootNodes",
                 .description = "lists a graph's root nodes",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   CUgraphNode roots[1];
                   size_t count = 1;
                   return f.driver.cuGraphGetRootNodes(s.graph, roots, &count);
                 }});
  out.push_back({.id = "cuGraphGetEdges",
                 .description = "counts a graph's edges",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   size_t count = 0;
                   return f.driver.cuGraphGetEdges(s.graph, nullptr, nullptr, nullptr, &count);
                 }});
  out.push_back({.id = "cuGraphNodeGetType",
                 .description = "asks a host node's type",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   CUgraphNodeType type;
                   return f.driver.cuGraphNodeGetType(s.node, &type);
                 }});
  out.push_back({.id = "cuGraphNodeGetDependencies",
                 .description = "counts a node's dependencies",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   size_t count = 0;
                   return f.driver.cuGraphNodeGetDependencies(s.node, nullptr, nullptr, &count);
                 }});
  out.push_back({.id = "cuGraphNodeGetDependentNodes",
                 .description = "counts the nodes that depend on a node",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   size_t count = 0;
                   return f.driver.cuGraphNodeGetDependentNodes(s.node, nullptr, nullptr, &count);
                 }});
  // A graph of a host node and an empty node, no edge between them.
  auto graph_with_two_nodes = [](F f, S s) {
    s.graph = f.new_graph();
    s.node = f.add_host_node(s.graph);
    f.check("cuGraphAddEmptyNode", f.driver.cuGraphAddEmptyNode(&s.second_node, s.graph, nullptr, 0));
  };
  out.push_back({.id = "cuGraphAddDependencies",
                 .description = "adds an edge between two nodes of a graph",
                 .prepare = graph_with_two_nodes,
                 .call = [](F f, S s) {
                   return f.driver.cuGraphAddDependencies(s.graph, &s.node, &s.second_node, nullptr, 1);
                 }});
  out.push_back({.id = "cuGraphRemoveDependencies",
                 .description = "removes the edge between two nodes of a graph",
                 .prepare = [=](F f, S s) {
                   graph_with_two_nodes(f, s);
                   f.check("cuGraphAddDependencies",
                           f.driver.cuGraphAddDependencies(s.graph, &s.node, &s.second_node, nullptr, 1));
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuGraphRemoveDependencies(s.graph, &s.node, &s.second_node, nullptr, 1);
                 }});
  out.push_back({.id = "cuGraphDestroyNode",
                 .description = "removes a graph's host node",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) { return f.driver.cuGraphDestroyNode(s.node); }});
}

}  // namespace gilsan::probe
