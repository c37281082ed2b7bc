// SimDriver: the one state of the simulated driver, created at first use and never destroyed.
//
// The process may exit at any moment with device work queued and callback threads inside host
// functions, so nothing here has a destructor that could run under those threads: the instance is
// leaked on purpose and every driver thread is detached.
//
// Locking: one mutex guards every object of the model (contexts, streams, events, memory, graphs).
// It is never held while application code runs (host functions, destructors, observer hooks), and
// `progress` is notified whenever something another thread may wait for has happened. No object of
// the model takes this mutex in its destructor, so references may be dropped with it held.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/profile/driver_profile.h"
#include "harness/simcuda/sim_entry_points.h"
#include "harness/simcuda/sim_handle_table.h"
#include "harness/simcuda/sim_injected_failures.h"

namespace gilsan::sim {

// How the sim names itself on the watchdog's board, as the outer record of every host function.
inline constexpr const char* kBoardDriverName = "simcuda";

using Lock = std::unique_lock<std::mutex>;

class CallbackThread;
struct SimContext;
struct SimDevice;
struct SimEvent;
struct SimFunction;
struct SimGraph;
struct SimGraphNode;
struct SimGraphExec;
struct SimKernel;
struct SimLibrary;
struct SimMemPool;
struct SimModule;
struct SimStream;
struct SimUserObject;

// The profile's tables, by entry-point id, for a lookup on every call; the enqueued-work cells are
// those of the loading mode the process runs under (CUDA_MODULE_LOADING at cuInit).
struct Policy {
  std::array<InsideBehaviour, kEntryPointCount> inside{};
  // On another thread while a host function runs, for a call that is not a kernel's first use: the
  // entry point's enqueued-work cell where it has one, else its while_host_function_runs answer.
  std::array<WorkBehaviour, kEntryPointCount> outside{};
  // The entry point has first-use cells: the call decides which cell it falls under (ApiScope::decide).
  std::array<bool, kEntryPointCount> may_be_first_use{};
  EnqueuedWorkTable work;  // the loading mode's cells, for the first-use lookups
};

class SimDriver {
 public:
  static SimDriver& instance();

  std::mutex mutex;
  std::condition_variable progress;

  // cuInit: reads the configuration once; later calls return the first call's result.
  CUresult initialize();
  bool initialized() const { return initialized_.load(std::memory_order_acquire); }

  // Valid once initialized() is true; never change afterwards.
  const DriverProfile& profile() const { return profile_; }
  const Policy& policy() const { return policy_; }
  ModuleLoading module_loading() const { return module_loading_; }
  // GILSAN_SIM_FAIL's calls that fail on purpose (sim_injected_failures.h); set once, at cuInit.
  InjectedFailures& injected_failures() { return injected_failures_; }
  // GILSAN_SIM_KERNELS=empty: a kernel the sim cannot run is launched as empty device work (its code is
  // never executed, its arguments never read) instead of being CUDA_ERROR_NOT_FOUND.
  bool runs_unknown_kernels_as_empty() const { return unknown_kernels_empty_; }
  const char* profile_source() const { return profile_source_.c_str(); }
  const char* profile_json() const { return profile_json_.c_str(); }
  int device_count() const { return static_cast<int>(devices_.size()); }
  SimDevice* device(int ordinal) const;

  // The configuration error of the failed cuInit, or "" (stable storage: set once).
  const char* last_error() const;

  // An entry point, or a feature of one, that the model does not cover: counted, never silent.
  CUresult unsupported() {
    unsupported_calls.fetch_add(1, std::memory_order_relaxed);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  std::atomic<unsigned long long> unsupported_calls{0};
  // Run keys of host functions (GilsanSimHostFunction::id): one per stream launch, one per graph host
  // node. Taken when the HostCall is made, so a captured launch keeps its key as a graph node.
  std::atomic<unsigned long long> next_run_key{1};
  unsigned long long take_run_key() { return next_run_key.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<unsigned long long> next_capture_id{1};

  // Guarded by mutex.
  HandleTable<SimContext> contexts;
  HandleTable<SimStream> streams;
  HandleTable<SimEvent> events;
  HandleTable<SimModule> modules;
  HandleTable<SimFunction> functions;
  HandleTable<SimLibrary> libraries;
  HandleTable<SimKernel> kernels;
  HandleTable<SimGraph> graphs;
  HandleTable<SimGraphNode> graph_nodes;
  HandleTable<SimGraphExec> graph_execs;
  HandleTable<SimUserObject> user_objects;
  HandleTable<SimMemPool> mem_pools;
  // Destroyed pools whose blocks may still be in use (an allocation points at its pool); never reused.
  std::vector<std::shared_ptr<SimMemPool>> destroyed_pools;
  int host_functions_running = 0;  // in every context; for calls that name no context
  std::shared_ptr<CallbackThread> process_callback_thread;  // topology per-process

 private:
  SimDriver() = default;
  CUresult configure(Lock& lock);

  std::atomic<bool> initialized_{false};
  bool init_attempted_ = false;
  CUresult init_result_ = CUDA_ERROR_NOT_INITIALIZED;
  DriverProfile profile_;
  Policy policy_;
  ModuleLoading module_loading_ = ModuleLoading::Lazy;
  InjectedFailures injected_failures_;
  bool unknown_kernels_empty_ = false;
  std::string profile_source_;
  std::string profile_json_;
  std::string last_error_;
  std::vector<std::unique_ptr<SimDevice>> devices_;
};

}  // namespace gilsan::sim
