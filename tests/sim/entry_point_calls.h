// One valid call of every entry point in a driver profile, for the tests that check each one against
// the profile: made from inside a host function, or from another thread while a host function runs.
//
// Each entry has a prepare step (run first, outside any host function, making what the call needs)
// and the call itself. Calls act on the idle stream S2 and on spare objects, never on the stream the
// host function runs on, so that the only thing that can hold them back is the driver's policy;
// the few whose own meaning is to wait for the whole context say so.
#pragma once

#include <cuda.h>

#include <functional>
#include <string>
#include <vector>

namespace gilsan::test {

// The objects the calls act on. The base ones exist before prepare; the rest prepare makes.
struct CallSite {
  CallSite() = default;
  CallSite(const CallSite&) = delete;
  CallSite& operator=(const CallSite&) = delete;
  ~CallSite();

  bool inside = false;           // the call runs inside the host function (else on another thread meanwhile)
  CUdevice device = 0;
  CUcontext context = nullptr;   // created for the test and current on the main thread
  CUstream gate_stream = nullptr;   // S1: the host function runs here (non-blocking)
  CUstream other_stream = nullptr;  // S2: idle (non-blocking)

  CUcontext spare_context = nullptr;
  CUstream spare_stream = nullptr;
  CUevent event = nullptr;
  CUevent second_event = nullptr;
  CUdeviceptr device_memory = 0;   // 4 KiB
  CUdeviceptr pool_memory = 0;
  void* pinned = nullptr;          // 4 KiB of page-locked host memory
  void* host_buffer = nullptr;     // 8 KiB of pageable, page-aligned host memory
  CUmemoryPool pool = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;   // gilsan_spin_ns
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
  CUgraph graph = nullptr;
  CUgraphNode host_node = nullptr;
  CUgraph second_graph = nullptr;         // a child graph, or a clone of `graph`
  CUgraphNode empty_node = nullptr;       // an empty node of `graph`, no edges
  CUgraphNode allocation_node = nullptr;  // an allocation node of `graph`
  CUdeviceptr graph_allocation = 0;       // the block it reserved
  CUgraphExec exec = nullptr;
  CUuserObject user_object = nullptr;
  unsigned long long spin_nanoseconds = 0;
  void* spin_params[1] = {&spin_nanoseconds};
};

struct EntryPointCall {
  std::string name;
  std::function<CUresult(CallSite&)> prepare;
  std::function<CUresult(CallSite&)> call;
  // By its own meaning the call waits for everything in the host function's context, so it cannot
  // return while the host function runs: from inside it hangs, from outside it blocks.
  bool waits_for_context_inside = false;
  bool waits_for_context_outside = false;
  // From outside, the call destroys a context (the last reference of a primary context goes), so it
  // behaves as the profile's cuCtxDestroy cell says rather than its own.
  bool destroys_context_outside = false;
};

const std::vector<EntryPointCall>& entry_point_calls();
// Null when the catalogue has no call for `name`.
const EntryPointCall* find_entry_point_call(const std::string& name);

}  // namespace gilsan::test
