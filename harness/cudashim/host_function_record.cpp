#include "harness/cudashim/host_function_record.h"

#include <mutex>
#include <vector>

#include "harness/cudashim/observed_call.h"
#include "harness/driverhooks/driver_hooks.h"

namespace gilsan::cudashim {
namespace {

std::atomic<unsigned long long> g_next_run_key{1};

// Every lasting record (a graph host node's): an executable graph may run one until the process ends,
// also after its node's parameters were replaced or the call that made it failed, so none is freed.
// Held here so that leak checkers see them reachable. (They grow with the host nodes a process makes:
// bounded memory is the sanitizer core's issue, not this one's.)
struct LastingRecords {
  std::mutex mutex;
  std::vector<const HostFunctionRecord*> records;
};

void keep_lasting(const HostFunctionRecord* record) {
  static auto* const kept = new LastingRecords();  // never freed: driver threads may outlive main
  std::lock_guard lock(kept->mutex);
  kept->records.push_back(record);
}

// Initial-exec: this library is loaded as libcuda.so.1, where a default thread_local would be dynamic
// TLS (a call into the resolver at every quiet query, and LeakSanitizer's tracer cannot walk it).
[[gnu::tls_model("initial-exec")]] thread_local int t_host_function_depth = 0;

// Around the application's function. A depth, not a flag, so that the answer stays right were a driver
// ever to run one host function inside another.
class RunningHostFunction {
 public:
  RunningHostFunction() { ++t_host_function_depth; }
  ~RunningHostFunction() { --t_host_function_depth; }
  RunningHostFunction(const RunningHostFunction&) = delete;
  RunningHostFunction& operator=(const RunningHostFunction&) = delete;
};

}  // namespace

HostFunctionRecord* make_record(CUhostFn fn, CUstreamCallback callback, void* user_data, CUcontext context,
                                CUstream stream, bool lasting) {
  auto* record = new HostFunctionRecord();
  record->info.id = g_next_run_key.fetch_add(1, std::memory_order_relaxed);
  record->info.context = context;
  record->info.stream = stream;
  record->info.fn = fn;
  record->info.user_data = user_data;
  record->info.callback = callback;
  record->lasting = lasting;
  record->launch_stream.store(stream, std::memory_order_relaxed);
  if (lasting) keep_lasting(record);
  return record;
}

GilsanSimHostFunction run_of(const HostFunctionRecord& record) {
  GilsanSimHostFunction run = record.info;
  run.stream = record.launch_stream.load(std::memory_order_relaxed);
  return run;
}

void CUDA_CB run_host_function_record(void* data) {
  auto* record = static_cast<HostFunctionRecord*>(data);
  const GilsanSimHostFunction run = run_of(*record);
  const bool one_shot = !record->lasting;
  driverhooks::host_function_begin(run, kBoardDriverName, record->maybe_pending);
  {
    RunningHostFunction running;
    run.fn(run.user_data);
  }
  driverhooks::host_function_end(run);
  if (one_shot) delete record;
}

void CUDA_CB run_stream_callback_record(CUstream stream, CUresult status, void* data) {
  auto* record = static_cast<HostFunctionRecord*>(data);
  const GilsanSimHostFunction run = run_of(*record);
  driverhooks::host_function_begin(run, kBoardDriverName, record->maybe_pending);
  {
    RunningHostFunction running;
    run.callback(stream, status, run.user_data);
  }
  driverhooks::host_function_end(run);
  delete record;  // a stream callback cannot be captured into a graph: it runs once
}

bool running_host_function() { return t_host_function_depth > 0; }

HostFunctionRecord* record_behind(CUhostFn fn, void* user_data) {
  return fn == &run_host_function_record ? static_cast<HostFunctionRecord*>(user_data) : nullptr;
}

}  // namespace gilsan::cudashim
