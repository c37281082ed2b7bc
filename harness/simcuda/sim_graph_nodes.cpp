#include "harness/simcuda/sim_graph_nodes.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_kernels.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_module.h"

namespace gilsan::sim {
namespace {

// The bytes a 3-D copy spans from its origin on one side.
std::size_t extent(std::size_t pitch, std::size_t height, const CUDA_MEMCPY3D& shape) {
  const std::size_t rows = shape.Height == 0 ? 1 : shape.Height;
  const std::size_t layers = shape.Depth == 0 ? 1 : shape.Depth;
  if (pitch == 0) pitch = shape.WidthInBytes;
  if (height == 0) height = rows;
  return (layers - 1) * pitch * height + (rows - 1) * pitch + shape.WidthInBytes;
}

CUresult check_copy_side(CUmemorytype type, const void* host, CUdeviceptr device, std::size_t origin,
                         std::size_t bytes) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return host == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: return device_accessible(device + origin, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_MEMORYTYPE_ARRAY: return SimDriver::instance().unsupported();  // CUDA arrays are not modelled
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult check_copy(const CUDA_MEMCPY3D& shape) {
  const std::size_t source_origin = shape.srcXInBytes + shape.srcY * shape.srcPitch +
                                    shape.srcZ * shape.srcPitch * shape.srcHeight;
  const std::size_t destination_origin = shape.dstXInBytes + shape.dstY * shape.dstPitch +
                                         shape.dstZ * shape.dstPitch * shape.dstHeight;
  if (CUresult rc = check_copy_side(shape.srcMemoryType, shape.srcHost, shape.srcDevice, source_origin,
                                    extent(shape.srcPitch, shape.srcHeight, shape));
      rc != CUDA_SUCCESS)
    return rc;
  return check_copy_side(shape.dstMemoryType, shape.dstHost, shape.dstDevice, destination_origin,
                         extent(shape.dstPitch, shape.dstHeight, shape));
}

// The new node, or null with the error in `rc`.
std::shared_ptr<SimGraphNode> add(const NodePlace& place, NodeKind kind, WorkItem work, CUresult& rc) {
  auto& driver = SimDriver::instance();
  std::shared_ptr<SimGraph> graph = driver.graphs.find(place.graph);
  rc = CUDA_ERROR_INVALID_VALUE;
  if (!graph || place.out == nullptr) return nullptr;
  SimGraphNode* node = nullptr;
  rc = add_node(*graph, kind, std::move(work), place.dependencies, place.dependency_count, node);
  if (rc != CUDA_SUCCESS) return nullptr;
  *place.out = node->handle();
  return driver.graph_nodes.find(node);
}

CUresult added(const NodePlace& place, NodeKind kind, WorkItem work) {
  CUresult rc = CUDA_SUCCESS;
  add(place, kind, std::move(work), rc);
  return rc;
}

}  // namespace

CUresult add_empty_node(const NodePlace& place) { return added(place, NodeKind::Empty, NoWork{}); }

CUresult add_host_node(const NodePlace& place, CUhostFn fn, void* user_data) {
  if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  HostCall call;
  call.fn = fn;
  call.user_data = user_data;
  call.run_key = SimDriver::instance().take_run_key();
  return added(place, NodeKind::Host, call);
}

CUresult add_kernel_node(const NodePlace& place, const CUDA_KERNEL_NODE_PARAMS& p) {
  if (p.gridDimX == 0 || p.gridDimY == 0 || p.gridDimZ == 0 || p.blockDimX == 0 || p.blockDimY == 0 ||
      p.blockDimZ == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<SimContext> context = p.ctx != nullptr ? find_context(p.ctx) : current_context();
  if (!context) return CUDA_ERROR_INVALID_CONTEXT;
  CUfunction handle = p.func != nullptr ? p.func : reinterpret_cast<CUfunction>(p.kern);
  std::shared_ptr<SimFunction> function = resolve_function(handle, *context);
  if (!function) return CUDA_ERROR_INVALID_VALUE;
  KernelRun run;
  if (CUresult rc = pack_kernel_arguments(*function->kernel, p.kernelParams, p.extra, run); rc != CUDA_SUCCESS)
    return rc;
  return added(place, NodeKind::Kernel, run);
}

CUresult add_memcpy_node(const NodePlace& place, const CUDA_MEMCPY3D& copy) {
  if (CUresult rc = check_copy(copy); rc != CUDA_SUCCESS) return rc;
  return added(place, NodeKind::Memcpy, Copy{copy, nullptr});
}

CUresult add_memset_node(const NodePlace& place, const CUDA_MEMSET_NODE_PARAMS& p) {
  const unsigned size = p.elementSize;
  if ((size != 1 && size != 2 && size != 4) || p.width == 0 || p.height == 0) return CUDA_ERROR_INVALID_VALUE;
  const std::size_t max_elements = std::numeric_limits<std::size_t>::max() / 4;
  if (p.width > max_elements || p.height > max_elements / p.width) return CUDA_ERROR_INVALID_VALUE;
  if (p.height > 1 && p.pitch < p.width * size) return CUDA_ERROR_INVALID_VALUE;  // rows overlap
  // Rows with a gap between them (a pitch wider than a row) are not modeled: one fill is one range.
  if (p.height > 1 && p.pitch != p.width * size) return CUDA_ERROR_NOT_SUPPORTED;
  const std::size_t count = p.width * p.height;
  if (!device_accessible(p.dst, count * size)) return CUDA_ERROR_INVALID_VALUE;
  return added(place, NodeKind::Memset, Fill{p.dst, p.value, size, count});
}

CUresult add_mem_alloc_node(const NodePlace& place, CUDA_MEM_ALLOC_NODE_PARAMS& params) {
  const CUmemPoolProps& props = params.poolProps;
  // Graph memory is device memory of one device, pinned (the only kind the driver allows here).
  if (params.bytesize == 0 || props.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<SimContext> context = current_context();
  if (!context) return CUDA_ERROR_INVALID_CONTEXT;
  if (props.location.id != context->device->ordinal) return CUDA_ERROR_INVALID_VALUE;
  std::uintptr_t block = 0;
  if (CUresult rc = allocate(MemoryKind::Graph, params.bytesize, *context, nullptr, block); rc != CUDA_SUCCESS)
    return rc;
  CUresult rc = CUDA_SUCCESS;
  std::shared_ptr<SimGraphNode> node = add(place, NodeKind::MemAlloc, NoWork{}, rc);
  if (!node) {
    release_graph_allocation(block);
    return rc;
  }
  params.dptr = block;
  node->allocation = block;
  node->allocation_params = params;
  node->allocation_params.accessDescs = nullptr;  // the caller's array: not kept past the call
  node->allocation_params.accessDescCount = 0;
  return CUDA_SUCCESS;
}

CUresult add_mem_free_node(const NodePlace& place, CUdeviceptr block) {
  auto& driver = SimDriver::instance();
  // Only the start of a graph allocation (of any graph) can be freed by a free node.
  bool graph_allocation = false;
  driver.graph_nodes.for_each([&](const std::shared_ptr<SimGraphNode>& node) {
    if (node->kind == NodeKind::MemAlloc && node->allocation == block && block != 0) graph_allocation = true;
  });
  if (!graph_allocation) return CUDA_ERROR_INVALID_VALUE;
  // Freed at most once in a graph.
  if (std::shared_ptr<SimGraph> graph = driver.graphs.find(place.graph)) {
    for (const auto& node : graph->nodes)
      if (node->kind == NodeKind::MemFree && node->allocation == block) return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult rc = CUDA_SUCCESS;
  std::shared_ptr<SimGraphNode> node = add(place, NodeKind::MemFree, NoWork{}, rc);
  if (node) node->allocation = block;
  return rc;
}

CUresult add_event_node(const NodePlace& place, CUevent event, NodeKind kind) {
  std::shared_ptr<SimEvent> found = SimDriver::instance().events.find(event);
  if (!found) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = CUDA_SUCCESS;
  std::shared_ptr<SimGraphNode> node = add(place, kind, NoWork{}, rc);
  if (node) node->event = std::move(found);
  return rc;
}

CUresult add_child_graph_node(const NodePlace& place, CUgraph child) {
  auto& driver = SimDriver::instance();
  std::shared_ptr<SimGraph> original = driver.graphs.find(child);
  if (!original || child == place.graph) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<SimGraph> copy;
  if (CUresult rc = clone_graph(*original, copy); rc != CUDA_SUCCESS) return rc;
  CUresult rc = CUDA_SUCCESS;
  std::shared_ptr<SimGraphNode> node = add(place, NodeKind::ChildGraph, NoWork{}, rc);
  if (!node) {
    forget_graph_nodes(*copy);
    return rc;
  }
  driver.graphs.add(copy);
  node->child = std::move(copy);
  return CUDA_SUCCESS;
}

CUresult add_conditional_node(const NodePlace& place, CUDA_CONDITIONAL_NODE_PARAMS& params) {
  auto& driver = SimDriver::instance();
  std::shared_ptr<SimGraph> graph = driver.graphs.find(place.graph);
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  const auto& conditions = graph->conditions;
  if (std::find(conditions.begin(), conditions.end(), params.handle) == conditions.end()) return CUDA_ERROR_INVALID_VALUE;
  const bool size_fits = params.type == CU_GRAPH_COND_TYPE_IF    ? (params.size == 1 || params.size == 2)
                         : params.type == CU_GRAPH_COND_TYPE_WHILE ? params.size == 1
                         : params.type == CU_GRAPH_COND_TYPE_SWITCH ? params.size > 0
                                                                    : false;
  if (!size_fits) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = CUDA_SUCCESS;
  std::shared_ptr<SimGraphNode> node = add(place, NodeKind::Conditional, NoWork{}, rc);
  if (!node) return rc;
  for (unsigned i = 0; i < params.size; ++i) {
    auto body = std::make_shared<SimGraph>();
    driver.graphs.add(body);
    node->body_handles.push_back(body->handle());
    node->bodies.push_back(std::move(body));
  }
  params.phGraph_out = node->body_handles.data();
  return CUDA_SUCCESS;
}

CUresult create_condition(CUgraph graph, CUgraphConditionalHandle& out) {
  static CUgraphConditionalHandle next = 0;  // guarded by the driver's lock, as every caller holds it
  std::shared_ptr<SimGraph> found = SimDriver::instance().graphs.find(graph);
  if (!found) return CUDA_ERROR_INVALID_VALUE;
  out = ++next;
  found->conditions.push_back(out);
  return CUDA_SUCCESS;
}

}  // namespace gilsan::sim
