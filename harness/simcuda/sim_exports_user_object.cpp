// User objects and the references graphs hold on them.
#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_user_object.h"

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuUserObjectCreate(CUuserObject* object_out, void* ptr, CUhostFn destroy,
                                    unsigned int initialRefcount, unsigned int flags) {
  ApiScope api(entry("cuUserObjectCreate"), on_current_context());
  if (api.refused()) return api.result();
  if (object_out == nullptr || destroy == nullptr || initialRefcount == 0 || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    auto object = std::make_shared<SimUserObject>();
    object->pointer = ptr;
    object->destroy = destroy;
    object->references = initialRefcount;
    driver.user_objects.add(object);
    *object_out = object->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuUserObjectRetain(CUuserObject object, unsigned int count) {
  ApiScope api(entry("cuUserObjectRetain"), on_current_context());
  if (api.refused()) return api.result();
  if (count == 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimUserObject> found = driver.user_objects.find(object);
  if (!found || !retain_user_object(*found, count)) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuUserObjectRelease(CUuserObject object, unsigned int count) {
  ApiScope api(entry("cuUserObjectRelease"), on_current_context());
  if (api.refused()) return api.result();
  if (count == 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimUserObject> found = driver.user_objects.find(object);
  if (!found || !release_user_object(found, count)) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count, unsigned int flags) {
  ApiScope api(entry("cuGraphRetainUserObject"), on_current_context());
  if (api.refused()) return api.result();
  if (count == 0 || (flags != 0 && flags != CU_GRAPH_USER_OBJECT_MOVE)) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimGraph> found_graph = driver.graphs.find(graph);
  std::shared_ptr<SimUserObject> found = driver.user_objects.find(object);
  if (!found_graph || !found) return api.finish(CUDA_ERROR_INVALID_VALUE);
  // MOVE hands over references the caller holds; otherwise the graph takes new ones.
  if (flags == 0 && !retain_user_object(*found, count)) return api.finish(CUDA_ERROR_INVALID_VALUE);
  if (flags == CU_GRAPH_USER_OBJECT_MOVE && found->references.load() < count)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  found_graph->user_objects.adopt(found, count);
  return api.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count) {
  ApiScope api(entry("cuGraphReleaseUserObject"), on_current_context());
  if (api.refused()) return api.result();
  if (count == 0) return api.finish(CUDA_ERROR_INVALID_VALUE);
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  std::shared_ptr<SimGraph> found_graph = driver.graphs.find(graph);
  std::shared_ptr<SimUserObject> found = driver.user_objects.find(object);
  if (!found_graph || !found || !found_graph->user_objects.release(found.get(), count))
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(CUDA_SUCCESS);
}

}  // extern "C"
