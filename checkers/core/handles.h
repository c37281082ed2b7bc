// The vocabulary every event and report shares: threads, driver handles, stacks, host-function
// kinds.
//
// Driver handles (CUcontext, CUstream, CUevent) travel as integers so that the core needs no CUDA
// header and can be fed by any source: the reference module, the simulated driver, CUPTI.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan::checkers {

using ThreadId = std::uint64_t;  // the OS thread id (gettid), as the board and the watchdog use
using Handle = std::uint64_t;    // a CUcontext, CUstream or CUevent as an integer
// Innermost frame first, symbolized by the source or by SanitizerConfig::symbolize_stack.
using Stack = std::vector<std::string>;
// `stack`, to be kept by several records at once; every empty stack is the same object.
std::shared_ptr<const Stack> shared_stack(Stack stack);

enum class HostFunctionKind {
  python,  // a Python callable run by a trampoline that takes the GIL
  ctypes,  // a ctypes function pointer: native code, or a CFUNCTYPE that takes the GIL inside
           // ctypes
  native,  // a plain C function: never takes the GIL on its own
};

std::string_view to_string(HostFunctionKind kind);

// "0x1f": handles are shown and written (JSON included) in hex, as debuggers show pointers.
std::string hex(std::uint64_t value);

// One host function as its source knows it: what will run, who launched it, where.
struct HostFunction {
  // The source's identity for the callable it keeps alive (e.g. the module's record address).
  // 0 means unknown: the host-function-lifetime checker then does not follow it.
  std::uint64_t id = 0;
  HostFunctionKind kind = HostFunctionKind::native;
  std::string implementation;  // who launched it: "gilsan", "cupy", "cuda.core", "numba-cuda", ...
  std::string callable;        // what runs, for people: "on_done at scenario.py:14"
  Handle context = 0;          // 0: unknown
  std::optional<Handle> stream;  // nullopt: unknown (a graph host node whose launch was not seen)
  // The driver's key for the run (GilsanSimHostFunction::id: one per stream launch, one per graph host
  // node); 0 when the source is not the driver. Only a driver-level source sets it, and the core
  // counts each key's runs enqueued and begun with it (host-function-lost-at-exit).
  std::uint64_t run_key = 0;
  // The userData the driver was given, when the source knows it (0 otherwise). It joins the driver's
  // record of a run with the launcher's own, better description of the same host function.
  std::uint64_t user_data = 0;
};

// Makes `host_function` a default one again; its strings keep their buffers for what is assigned next
// (the model's maps make an entry per host function in the nodes of erased ones: node_pool.h).
void reset_keeping_buffers(HostFunction& host_function);

// The driver's codes the core needs to name; everything else is passed through as a number.
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorNotPermitted = 800;

}  // namespace gilsan::checkers
