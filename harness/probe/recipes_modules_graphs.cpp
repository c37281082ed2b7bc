// Recipes for modules, libraries and kernel launches, graphs and user objects.
#include "harness/probe/call_recipe.h"

namespace gilsan::probe {
namespace {

constexpr unsigned long long kSpinNanoseconds = 1000;

CUresult launch_spin(const ProbeFixture& f, RecipeState& s, CUstream stream) {
  s.spin_nanoseconds = kSpinNanoseconds;
  return f.driver.cuLaunchKernel(s.function, 1, 1, 1, 1, 1, 1, 0, stream, s.kernel_params, nullptr);
}

}  // namespace

void add_module_and_graph_recipes(std::vector<CallRecipe>& out) {
  using F = const ProbeFixture&;
  using S = RecipeState&;

  out.push_back({.id = "cuModuleLoadData",
                 .description = "loads the spin kernel's module image (PTX: JIT-compiled on a real driver)",
                 .call = [](F f, S s) { return f.driver.cuModuleLoadData(&s.module, f.module_image()); }});
  out.push_back({.id = "cuModuleUnload",
                 .description = "unloads a module loaded in preparation",
                 .prepare = [](F f, S s) { s.module = f.load_module(); },
                 .call = [](F f, S s) { return f.driver.cuModuleUnload(s.module); }});
  out.push_back({.id = "cuModuleGetFunction",
                 .description = "looks up the spin kernel in a module loaded in preparation",
                 .prepare = [](F f, S s) { s.module = f.load_module(); },
                 .call = [](F f, S s) {
                   return f.driver.cuModuleGetFunction(&s.function, s.module, f.spin_kernel_name());
                 }});
  out.push_back({.id = "cuLibraryLoadData",
                 .description = "loads the spin kernel's image as a context-independent library",
                 .call = [](F f, S s) {
                   return f.driver.cuLibraryLoadData(&s.library, f.module_image(), nullptr, nullptr, 0, nullptr,
                                                     nullptr, 0);
                 }});
  out.push_back({.id = "cuLibraryUnload",
                 .description = "unloads a library loaded in preparation",
                 .prepare = [](F f, S s) { s.library = f.load_library(); },
                 .call = [](F f, S s) { return f.driver.cuLibraryUnload(s.library); }});
  out.push_back({.id = "cuLibraryGetKernel",
                 .description = "looks up the spin kernel in a library loaded in preparation",
                 .prepare = [](F f, S s) { s.library = f.load_library(); },
                 .call = [](F f, S s) {
                   return f.driver.cuLibraryGetKernel(&s.kernel, s.library, f.spin_kernel_name());
                 }});
  out.push_back({.id = "cuKernelGetFunction",
                 .description = "the spin kernel's function in the current context (loads it there on first use)",
                 .prepare = [](F f, S s) {
                   s.library = f.load_library();
                   s.kernel = f.spin_kernel(s.library);
                 },
                 .call = [](F f, S s) { return f.driver.cuKernelGetFunction(&s.function, s.kernel); }});
  out.push_back({.id = "cuLaunchKernel",
                 .description = "first launch on S2 of a function from a freshly loaded module (lazy loading "
                                "happens here)",
                 .prepare = [](F f, S s) {
                   s.module = f.load_module();
                   s.function = f.spin_function(s.module);
                 },
                 .call = [](F f, S s) { return launch_spin(f, s, f.s2); }});
  out.push_back({.id = "cuLaunchKernel#first-library-kernel",
                 .description = "first launch on S2 of a freshly loaded library's kernel, its CUkernel passed as the "
                                "CUfunction (loads it into the context under lazy loading)",
                 .prepare = [](F f, S s) {
                   s.library = f.load_library();
                   s.kernel = f.spin_kernel(s.library);
                   s.function = reinterpret_cast<CUfunction>(s.kernel);
                 },
                 .call = [](F f, S s) { return launch_spin(f, s, f.s2); },
                 .first_use_only = true});
  out.push_back({.id = "cuLaunchKernel#later",
                 .description = "a later launch on S2 of a function already launched and completed",
                 .prepare = [](F f, S s) {
                   s.module = f.load_module();
                   s.function = f.spin_function(s.module);
                   f.check("cuLaunchKernel", launch_spin(f, s, f.s2));
                   f.check("cuStreamSynchronize", f.driver.cuStreamSynchronize(f.s2));
                 },
                 .call = [](F f, S s) { return launch_spin(f, s, f.s2); }});
  out.push_back({.id = "cuLaunchKernelEx",
                 .description = "a launch on S2, with a launch configuration and no attributes, of a function "
                                "already launched and completed",
                 .prepare = [](F f, S s) {
                   s.module = f.load_module();
                   s.function = f.spin_function(s.module);
                   f.check("cuLaunchKernel", launch_spin(f, s, f.s2));
                   f.check("cuStreamSynchronize", f.driver.cuStreamSynchronize(f.s2));
                 },
                 .call = [](F f, S s) {
                   CUlaunchConfig config{};
                   config.gridDimX = config.gridDimY = config.gridDimZ = 1;
                   config.blockDimX = config.blockDimY = config.blockDimZ = 1;
                   config.hStream = f.s2;
                   s.spin_nanoseconds = kSpinNanoseconds;
                   return f.driver.cuLaunchKernelEx(&config, s.function, s.kernel_params, nullptr);
                 }});

  out.push_back({.id = "cuGraphCreate",
                 .description = "creates an empty graph",
                 .call = [](F f, S s) { return f.driver.cuGraphCreate(&s.graph, 0); }});
  out.push_back({.id = "cuGraphDestroy",
                 .description = "destroys a graph of one empty node created in preparation",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   f.add_empty_node(s.graph);
                 },
                 .call = [](F f, S s) { return f.driver.cuGraphDestroy(s.graph); }});
  out.push_back({.id = "cuGraphAddHostNode",
                 .description = "adds a host node to a graph",
                 .prepare = [](F f, S s) { s.graph = f.new_graph(); },
                 .call = [](F f, S s) {
                   CUDA_HOST_NODE_PARAMS params{do_nothing, nullptr};
                   return f.driver.cuGraphAddHostNode(&s.node, s.graph, nullptr, 0, &params);
                 }});
  out.push_back({.id = "cuGraphAddKernelNode",
                 .description = "adds a spin-kernel node to a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.module = f.load_module();
                   s.function = f.spin_function(s.module);
                   s.spin_nanoseconds = kSpinNanoseconds;
                 },
                 .call = [](F f, S s) {
                   CUDA_KERNEL_NODE_PARAMS params{};
                   params.func = s.function;
                   params.gridDimX = params.gridDimY = params.gridDimZ = 1;
                   params.blockDimX = params.blockDimY = params.blockDimZ = 1;
                   params.kernelParams = s.kernel_params;
                   return f.driver.cuGraphAddKernelNode(&s.node, s.graph, nullptr, 0, &params);
                 }});
  out.push_back({.id = "cuGraphAddMemcpyNode",
                 .description = "adds a 4 KiB device-to-device memcpy node to a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.device_memory = f.new_device_memory(4096);
                   s.second_device_memory = f.new_device_memory(4096);
                 },
                 .call = [](F f, S s) {
                   CUDA_MEMCPY3D copy{};
                   copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
                   copy.srcDevice = s.device_memory;
                   copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
                   copy.dstDevice = s.second_device_memory;
                   copy.WidthInBytes = 4096;
                   copy.Height = 1;
                   copy.Depth = 1;
                   return f.driver.cuGraphAddMemcpyNode(&s.node, s.graph, nullptr, 0, &copy, f.context);
                 }});
  out.push_back({.id = "cuGraphAddMemsetNode",
                 .description = "adds a 4 KiB memset node (bytes) to a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.device_memory = f.new_device_memory(4096);
                 },
                 .call = [](F f, S s) {
                   CUDA_MEMSET_NODE_PARAMS params{};
                   params.dst = s.device_memory;
                   params.value = 7;
                   params.elementSize = 1;
                   params.width = 4096;
                   params.height = 1;
                   return f.driver.cuGraphAddMemsetNode(&s.node, s.graph, nullptr, 0, &params, f.context);
                 }});
  out.push_back({.id = "cuGraphAddEmptyNode",
                 .description = "adds an empty node to a graph",
                 .prepare = [](F f, S s) { s.graph = f.new_graph(); },
                 .call = [](F f, S s) { return f.driver.cuGraphAddEmptyNode(&s.node, s.graph, nullptr, 0); }});
  out.push_back({.id = "cuGraphHostNodeSetParams",
                 .description = "changes the function of a graph's host node",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.node = f.add_host_node(s.graph);
                 },
                 .call = [](F f, S s) {
                   CUDA_HOST_NODE_PARAMS params{do_nothing, &s};
                   return f.driver.cuGraphHostNodeSetParams(s.node, &params);
                 }});
  auto graph_with_host_node = [](F f, S s) {
    s.graph = f.new_graph();
    s.node = f.add_host_node(s.graph);
  };
  auto executable_graph = [](F f, S s) {
    s.graph = f.new_graph();
    s.node = f.add_host_node(s.graph);
    s.exec = f.instantiate(s.graph);
  };
  out.push_back({.id = "cuGraphInstantiateWithFlags",
                 .description = "instantiates a graph of one host node",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) { return f.driver.cuGraphInstantiateWithFlags(&s.exec, s.graph, 0); }});
  out.push_back({.id = "cuGraphInstantiateWithParams",
                 .description = "instantiates a graph of one host node with default parameters (no upload)",
                 .prepare = graph_with_host_node,
                 .call = [](F f, S s) {
                   CUDA_GRAPH_INSTANTIATE_PARAMS params{};
                   return f.driver.cuGraphInstantiateWithParams(&s.exec, s.graph, &params);
                 }});
  out.push_back({.id = "cuGraphUpload",
                 .description = "uploads an executable graph of one host node on S2",
                 .prepare = executable_graph,
                 .call = [](F f, S s) { return f.driver.cuGraphUpload(s.exec, f.s2); }});
  out.push_back({.id = "cuGraphLaunch",
                 .description = "launches an executable graph of one host node on S2 (enqueue only)",
                 .prepare = executable_graph,
                 .call = [](F f, S s) { return f.driver.cuGraphLaunch(s.exec, f.s2); }});
  out.push_back({.id = "cuGraphExecDestroy",
                 .description = "destroys an idle executable graph of one host node",
                 .prepare = executable_graph,
                 .call = [](F f, S s) { return f.driver.cuGraphExecDestroy(s.exec); }});

  out.push_back({.id = "cuUserObjectCreate",
                 .description = "creates a user object with a do-nothing destructor",
                 .call = [](F f, S s) {
                   return f.driver.cuUserObjectCreate(&s.user_object, &s, do_nothing, 1,
                                                      CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
                 }});
  out.push_back({.id = "cuUserObjectRetain",
                 .description = "adds a reference to a user object created in preparation",
                 .prepare = [](F f, S s) { s.user_object = f.new_user_object(); },
                 .call = [](F f, S s) { return f.driver.cuUserObjectRetain(s.user_object, 1); }});
  out.push_back({.id = "cuUserObjectRelease",
                 .description = "releases the last reference to a user object (its destructor is scheduled)",
                 .prepare = [](F f, S s) { s.user_object = f.new_user_object(); },
                 .call = [](F f, S s) { return f.driver.cuUserObjectRelease(s.user_object, 1); }});
  out.push_back({.id = "cuGraphRetainUserObject",
                 .description = "moves the only reference to a user object into a graph",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.user_object = f.new_user_object();
                 },
                 .call = [](F f, S s) {
                   return f.driver.cuGraphRetainUserObject(s.graph, s.user_object, 1, CU_GRAPH_USER_OBJECT_MOVE);
                 }});
  out.push_back({.id = "cuGraphReleaseUserObject",
                 .description = "releases a graph's reference to a user object that the caller still holds",
                 .prepare = [](F f, S s) {
                   s.graph = f.new_graph();
                   s.user_object = f.new_user_object();
                   f.check("cuGraphRetainUserObject", f.driver.cuGraphRetainUserObject(s.graph, s.user_object, 1, 0));
                 },
                 .call = [](F f, S s) { return f.driver.cuGraphReleaseUserObject(s.graph, s.user_object, 1); }});
}

}  // namespace gilsan::probe
