// Devices, contexts and each thread's stack of current contexts.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>

#include "harness/simcuda/sim_driver.h"

namespace gilsan::sim {

// Fields after the constants are guarded by SimDriver::mutex.
struct SimDevice {
  int ordinal = 0;
  std::string name;
  std::size_t total_memory = 0;
  std::shared_ptr<SimMemPool> default_pool;
  std::shared_ptr<SimMemPool> current_pool;  // cuMemAllocAsync's (cuDeviceSetMemPool); the default one at first

  std::size_t memory_in_use = 0;
  std::shared_ptr<SimContext> primary;  // created by the first retain; destroyed (not freed) by the last release
  unsigned primary_references = 0;
  std::shared_ptr<CallbackThread> callback_thread;  // topology per-device
};

// Guarded by SimDriver::mutex.
struct SimContext {
  SimDevice* device = nullptr;
  bool is_primary = false;
  bool closing = false;    // destruction has begun (it waits for the context's work)
  bool destroyed = false;  // destruction has ended
  CUresult sticky_error = CUDA_SUCCESS;  // set by a fault in device work; the context is then unusable

  std::shared_ptr<SimStream> legacy_stream;
  std::map<std::uint64_t, std::shared_ptr<SimStream>> per_thread_streams;  // by thread (see sim_stream.cpp)
  // Every stream of the context that is alive or still has work, including the two kinds above.
  std::unordered_map<const SimStream*, std::shared_ptr<SimStream>> streams;

  std::shared_ptr<CallbackThread> callback_thread;  // topology per-context
  int host_functions_running = 0;

  CUcontext handle() { return reinterpret_cast<CUcontext>(this); }
};

// Requires the lock. Creates and registers a context with its legacy stream.
std::shared_ptr<SimContext> create_context(SimDevice& device, bool is_primary);
// Requires the lock. Brings a destroyed primary context back under the same handle, empty, as the
// real driver's primary context keeps its handle across the last release and the next retain.
void revive_primary_context(const std::shared_ptr<SimContext>& context);
// Waits for the context's work, then ends its streams and threads and frees its memory and objects.
// Returns the objects to drop after the caller has released the lock.
void destroy_context(Lock& lock, const std::shared_ptr<SimContext>& context);

// Requires the lock. The context of a handle, or null when the handle is not a live context.
std::shared_ptr<SimContext> find_context(CUcontext handle);

// The calling thread's current context: the top of its stack; on a driver callback thread without one,
// the context whose callback is running. Requires the lock.
std::shared_ptr<SimContext> current_context();
// What cuCtxGetCurrent reports: only the stack, no fallback (a callback thread has no current context).
CUcontext current_context_handle();
void push_current_context(CUcontext context);
CUcontext pop_current_context();           // null when the stack is empty
void replace_current_context(CUcontext context);  // cuCtxSetCurrent semantics

}  // namespace gilsan::sim
