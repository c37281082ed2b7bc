// What the forwarding driver hands the real one instead of the application's host function: a record
// of it and a trampoline that tells the observer and the board when it begins and ends, on the
// driver's callback thread, as the simulated driver does for its own host functions.
#pragma once

#include <cuda.h>

#include <atomic>

#include "harness/driverhooks/driver_observer.h"

namespace gilsan::cudashim {

struct HostFunctionRecord {
  GilsanSimHostFunction info{};  // id: the run key; fn/user_data/callback: the application's
  // A graph host node (built, or captured from a stream launch) runs at every launch of its graph,
  // so its record lives for the rest of the process; a stream launch's record is freed by its run.
  bool lasting = false;
  // A stream launch's: whether the board took its pending note (written before the launch, read by
  // its run). A graph node's stays true: each launch of the graph notes it again.
  bool maybe_pending = true;
  // A graph node's stream is the launch's, set at each cuGraphLaunch (a stream launch's never changes).
  std::atomic<CUstream> launch_stream{nullptr};
  // A graph node's: whether graph launches tell the observer they enqueued it. Cleared when the book of
  // graphs (graph_host_nodes.h) lost track of which graphs still hold it.
  std::atomic<bool> announced{true};
};

// A record for the application's host function (or stream callback), with a fresh run key.
HostFunctionRecord* make_record(CUhostFn fn, CUstreamCallback callback, void* user_data, CUcontext context,
                                CUstream stream, bool lasting);

// What is passed to the real driver in place of the application's function.
void CUDA_CB run_host_function_record(void* record);
void CUDA_CB run_stream_callback_record(CUstream stream, CUresult status, void* record);

// The record behind host-node parameters the real driver reports back (our trampoline and record), so
// that cuGraphHostNodeGetParams answers with the application's own function; null for any other.
HostFunctionRecord* record_behind(CUhostFn fn, void* user_data);

// Whether the calling thread is running an application's host function (or stream callback) through
// one of the trampolines above: the calls it makes are watched whatever they are (quiet_queries.h).
bool running_host_function();

// What the observer is told of one run of `record`.
GilsanSimHostFunction run_of(const HostFunctionRecord& record);

}  // namespace gilsan::cudashim
