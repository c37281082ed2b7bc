// Watching one driver call: what it acts on, the observer and board told on entry and exit, and the
// wrapper every watched entry point of the driver table goes through.
//
// A wrapper costs one check when nobody listens (no observer installed, no board): the call then goes
// straight to the real driver.
#pragma once

#include <cuda.h>

#include <span>
#include <type_traits>

#include "harness/cudashim/host_function_record.h"
#include "harness/cudashim/quiet_queries.h"
#include "harness/driverhooks/driver_hooks.h"

namespace gilsan::cudashim {

// How the forwarding driver names itself on the watchdog's board, as the outer record of every host
// function.
inline constexpr const char* kBoardDriverName = "libcuda";

// The objects a call acts on: its first CUcontext, CUstream and CUevent arguments.
struct CallTarget {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
  bool has_context = false;
  bool has_stream = false;
  bool has_event = false;
};

template <typename Argument>
void note_target(CallTarget& target, Argument argument) {
  if constexpr (std::is_same_v<Argument, CUcontext>) {
    if (!target.has_context) target = {argument, target.stream, target.event, true, target.has_stream, target.has_event};
  } else if constexpr (std::is_same_v<Argument, CUstream>) {
    if (!target.has_stream) target = {target.context, argument, target.event, target.has_context, true, target.has_event};
  } else if constexpr (std::is_same_v<Argument, CUevent>) {
    if (!target.has_event) target = {target.context, target.stream, argument, target.has_context, target.has_stream, true};
  }
}

template <typename... Arguments>
CallTarget target_of(Arguments... arguments) {
  CallTarget target;
  (note_target(target, arguments), ...);
  return target;
}

// One watched call, from entry to exit. The context is the call's context argument, else its stream's,
// else the calling thread's current one, asked of the real driver (as the simulated driver reports it).
class CallScope {
 public:
  CallScope(const char* entry_point, const CallTarget& target);
  ~CallScope() { driverhooks::api_exit(call_, result_); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  CUresult finish(CUresult result) {
    result_ = result;
    return result;
  }
  CUcontext context() const { return call_.context; }

 private:
  GilsanSimApiCall call_{};
  CUresult result_ = CUDA_SUCCESS;
};

// The real driver's function behind an entry point of ours, filled when the library loads.
template <auto Entry>
struct RealEntry {
  static inline decltype(Entry) function = nullptr;
};

// The wrapper of a watched entry point: `Entry` is the cuda.h declaration it stands for (&::cuMemAlloc
// is cuMemAlloc_v2), which gives its signature.
template <auto Entry>
struct ObservedCall;

template <typename... Arguments, CUresult (*Entry)(Arguments...)>
struct ObservedCall<Entry> {
  static inline const char* entry_point = nullptr;  // the name without version suffix, for reports

  static CUresult call(Arguments... arguments) {
    auto real = RealEntry<Entry>::function;
    if (!driverhooks::observed()) return real(arguments...);
    // entry_point is set before the first call can come (forwarding_table.cpp).
    static const bool quiet = is_quiet_query(entry_point);
    if (quiet && !running_host_function()) {
      const CUresult result = real(arguments...);
      if (result == CUDA_SUCCESS) return result;
      CallScope after_the_fact(entry_point, target_of(arguments...));
      return after_the_fact.finish(result);
    }
    CallScope scope(entry_point, target_of(arguments...));
    return scope.finish(real(arguments...));
  }
};

// One exported symbol whose slot points at a wrapper of ours instead of the real function.
struct WrappedEntryPoint {
  const char* symbol;       // as exported: "cuMemAlloc_v2", "cuLaunchHostFunc_ptsz"
  void* wrapper;            // what the symbol's slot and cuGetProcAddress hand out
  void** real;              // where the real function is stored for the wrapper
  const char* entry_point;  // without version suffix, as reports name it ("cuMemAlloc")
  const char** name_slot;   // where the wrapper reads that name (ObservedCall::entry_point), or null
};

// The driver table's entry points (harness/driver/driver_entry_points.h) as cuda.h declares them,
// and their per-thread-default-stream forms (_ptsz/_ptds).
std::span<const WrappedEntryPoint> default_stream_entry_points();
std::span<const WrappedEntryPoint> per_thread_entry_points();
// Wrappers written by hand: host functions, graphs, cuGetProcAddress. They win over the above.
std::span<const WrappedEntryPoint> host_function_entry_points();
std::span<const WrappedEntryPoint> graph_entry_points();
std::span<const WrappedEntryPoint> proc_address_entry_points();

// The wrapper for an exported symbol, or null when the symbol goes straight to the real driver.
const WrappedEntryPoint* wrapped_entry_point(const char* symbol);
// Whether `entry_point` (a name without version suffix, as cuGetProcAddress takes it) is one we watch.
bool is_watched_entry_point(const char* entry_point);

#define GILSAN_SHIM_STRING_EXPANDED(x) #x
#define GILSAN_SHIM_STRING(x) GILSAN_SHIM_STRING_EXPANDED(x)

// One WrappedEntryPoint for the generic wrapper of `name` (an X-macro argument: `#name` is the bare
// name, `name` expands to the versioned symbol cuda.h declares in this translation unit).
#define GILSAN_SHIM_OBSERVED_ENTRY(name)                                                                             \
  gilsan::cudashim::WrappedEntryPoint{GILSAN_SHIM_STRING(name),                                                      \
                                      reinterpret_cast<void*>(&gilsan::cudashim::ObservedCall<&::name>::call),      \
                                      reinterpret_cast<void**>(&gilsan::cudashim::RealEntry<&::name>::function),   \
                                      #name, &gilsan::cudashim::ObservedCall<&::name>::entry_point},

}  // namespace gilsan::cudashim
