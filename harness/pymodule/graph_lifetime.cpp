#include "harness/pymodule/graph_lifetime.h"

#include <map>

#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/host_trampolines.h"

namespace gilsan::pymodule {
namespace {

// Touched only with the GIL held.
std::map<CUgraph, long long>& captured_python_nodes() {
  static auto* const counts = new std::map<CUgraph, long long>();
  return *counts;
}

}  // namespace

bool tie_payload_to_graph_or_raise(CUgraph graph, HostPayload* payload, CUcontext context, CUuserObject* object) {
  const DriverTable* table = table_or_raise();
  if (table == nullptr) {
    release_payload(payload);
    return false;
  }
  CUuserObject created = nullptr;
  CUresult result = call_driver("cuUserObjectCreate", Gil::Release, [&] {
    return table->cuUserObjectCreate(&created, payload, &user_object_destructor, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
  });
  if (result != CUDA_SUCCESS) {
    release_payload(payload);
    return check_driver(result, "cuUserObjectCreate", context);
  }
  result = call_driver("cuGraphRetainUserObject", Gil::Release,
                       [&] { return table->cuGraphRetainUserObject(graph, created, 1, CU_GRAPH_USER_OBJECT_MOVE); });
  if (result != CUDA_SUCCESS) {
    // The reference is still ours; dropping it runs the destructor, which releases the payload.
    call_driver("cuUserObjectRelease", Gil::Release, [&] { return table->cuUserObjectRelease(created, 1); });
    return check_driver(result, "cuGraphRetainUserObject", context);
  }
  *object = created;
  return true;
}

void untie_payload_from_graph(CUgraph graph, CUuserObject object) {
  const DriverTable* table = opened_driver_table();
  if (table == nullptr) return;
  call_driver("cuGraphReleaseUserObject", Gil::Release, [&] { return table->cuGraphReleaseUserObject(graph, object, 1); });
}

void note_captured_python_node(CUgraph graph) { ++captured_python_nodes()[graph]; }

long long take_captured_python_nodes(CUgraph graph) {
  auto& counts = captured_python_nodes();
  const auto found = counts.find(graph);
  if (found == counts.end()) return 0;
  const long long count = found->second;
  counts.erase(found);
  return count;
}

}  // namespace gilsan::pymodule
