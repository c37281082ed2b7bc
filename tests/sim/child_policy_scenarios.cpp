// Child scenarios that check one entry point against the profile: called from inside a host function
// ("inside NAME"), or from the main thread while a host function is running ("outside NAME"), and the
// waits of a host function on its own stream and on an event recorded after it.
#include <atomic>
#include <thread>

#include "tests/sim/child_scenarios.h"
#include "tests/sim/entry_point_calls.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

// How long a call on another thread may take before it counts as held back by the host function.
constexpr std::chrono::milliseconds kBlockedAfter{1000};

bool make_base_site(CallSite& site) {
  const DriverTable& d = driver();
  return d.cuDeviceGet(&site.device, 0) == CUDA_SUCCESS &&
         d.cuCtxCreate(&site.context, nullptr, 0, site.device) == CUDA_SUCCESS &&
         d.cuStreamCreate(&site.gate_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
         d.cuStreamCreate(&site.other_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
}

// The base site and the entry's own preparation; false (and reported) on failure.
bool prepare(CallSite& site, const EntryPointCall& call) {
  if (!make_base_site(site)) {
    report("error", "cannot make the context and streams");
    return false;
  }
  if (call.prepare) {
    if (CUresult rc = call.prepare(site); rc != CUDA_SUCCESS) {
      report("error", "preparing " + call.name + " failed with " + result_name(rc));
      return false;
    }
  }
  return true;
}

// Waits for both streams; errors are ignored, since the call under test may have destroyed the context.
void drain(const CallSite& site) {
  driver().cuStreamSynchronize(site.gate_stream);
  driver().cuStreamSynchronize(site.other_stream);
  report("drained", "yes");
}

struct InsideCall {
  CallSite* site;
  const EntryPointCall* call;
};

void CUDA_CB call_inside(void* user_data) {
  auto* inside = static_cast<InsideCall*>(user_data);
  report("calling", inside->call->name);
  CUresult rc = inside->call->call(*inside->site);
  // A number, not a name: looking the name up would be one more driver call from here.
  report("called", std::to_string(static_cast<int>(rc)));
}

int run_inside(const std::string& name) {
  const EntryPointCall* call = find_entry_point_call(name);
  if (call == nullptr) {
    report("error", "no catalogue call for " + name);
    return 2;
  }
  CallSite site;
  site.inside = true;
  if (!prepare(site, *call)) return 4;
  InsideCall inside{&site, call};
  if (CUresult rc = driver().cuLaunchHostFunc(site.gate_stream, &call_inside, &inside); rc != CUDA_SUCCESS) {
    report("error", "cuLaunchHostFunc failed with " + result_name(rc));
    return 4;
  }
  drain(site);
  return 0;
}

int run_outside(const std::string& name) {
  const EntryPointCall* call = find_entry_point_call(name);
  if (call == nullptr) {
    report("error", "no catalogue call for " + name);
    return 2;
  }
  CallSite site;
  if (!prepare(site, *call)) return 4;
  Gate gate;
  if (gate.launch(site.gate_stream) != CUDA_SUCCESS || !gate.wait_entered()) {
    report("error", "the gate host function did not start");
    return 4;
  }
  std::atomic<bool> returned{false};
  std::atomic<bool> opened{false};
  std::thread releaser([&] {
    eventually([&] { return returned.load(); }, kBlockedAfter);
    opened.store(true);
    gate.open();
  });
  report("calling", name);
  CUresult rc = call->call(site);
  const bool gate_was_open = opened.load();
  returned.store(true);
  report("called", std::to_string(static_cast<int>(rc)));
  report("verdict", gate_was_open ? "blocks" : "returns");
  releaser.join();
  drain(site);
  return 0;
}

struct OwnStream {
  CUstream stream = nullptr;
  CUevent event = nullptr;
  std::atomic<bool> recorded{false};
};

void CUDA_CB synchronize_own_stream(void* user_data) {
  auto* own = static_cast<OwnStream*>(user_data);
  report("calling", "cuStreamSynchronize");
  CUresult rc = driver().cuStreamSynchronize(own->stream);
  report("called", std::to_string(static_cast<int>(rc)));
}

void CUDA_CB synchronize_later_event(void* user_data) {
  auto* own = static_cast<OwnStream*>(user_data);
  eventually([&] { return own->recorded.load(); });
  report("calling", "cuEventSynchronize");
  CUresult rc = driver().cuEventSynchronize(own->event);
  report("called", std::to_string(static_cast<int>(rc)));
}

void CUDA_CB query_own_work(void* user_data) {
  auto* own = static_cast<OwnStream*>(user_data);
  eventually([&] { return own->recorded.load(); });
  report("stream-query", std::to_string(static_cast<int>(driver().cuStreamQuery(own->stream))));
  report("event-query", std::to_string(static_cast<int>(driver().cuEventQuery(own->event))));
}

// A host function waits, through the driver, for work ordered after itself on its own stream.
int run_own_work(CUhostFn host_function) {
  const DriverTable& d = driver();
  CallSite site;
  if (!make_base_site(site)) return 4;
  OwnStream own;
  own.stream = site.gate_stream;
  if (d.cuEventCreate(&own.event, 0) != CUDA_SUCCESS) return 4;
  if (d.cuLaunchHostFunc(own.stream, host_function, &own) != CUDA_SUCCESS) return 4;
  if (d.cuEventRecord(own.event, own.stream) != CUDA_SUCCESS) return 4;
  own.recorded.store(true);
  d.cuStreamSynchronize(own.stream);  // never returns when the host function hangs
  report("drained", "yes");
  return 0;
}

}  // namespace

int child_inside(const std::string& argument) { return run_inside(argument); }
int child_outside(const std::string& argument) { return run_outside(argument); }
int child_own_stream_synchronize(const std::string&) { return run_own_work(&synchronize_own_stream); }
int child_later_event_synchronize(const std::string&) { return run_own_work(&synchronize_later_event); }
int child_own_work_queries(const std::string&) { return run_own_work(&query_own_work); }

}  // namespace gilsan::test
