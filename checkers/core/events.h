// The events an event source feeds into the Sanitizer (sanitizer.h), one struct per kind that
// carries more than a thread id. Sources: the reference `gilsan` module's trampolines, the
// simulated driver's observer hooks, the CUPTI injection library. See docs/sanitizer.md for when
// each one is sent.
//
// string_view members only need to live for the duration of the call that passes the event; the
// core copies what it keeps. A Stack is kept only for the first occurrence of what it explains, so
// a source that cannot afford to capture one per event leaves it empty and gives the Sanitizer a
// SanitizerConfig::capture_stack instead, which the core calls only for what it keeps.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

// What a driver call waits for until it returns. The source says it (it knows the call's
// arguments); the core never guesses from call names: cuStreamSynchronize(S) waits for {S},
// cuEventSynchronize(E) for the stream E was recorded on, cuCtxSynchronize for the whole context,
// cuStreamQuery for nothing.
struct CompletionWait {
  std::vector<Handle>
      streams;  // streams whose completion the call waits for (of the call's context)
  bool whole_context = false;  // waits for every stream of the call's context, current and future
  bool empty() const { return streams.empty() && !whole_context; }
};

struct DriverCallEnter {
  ThreadId thread = 0;
  std::string_view entry_point;  // as cuda.h names it without version suffix: "cuStreamSynchronize"
  Handle context = 0;            // the context the call acts on; 0: unknown
  std::optional<Handle> stream;  // the stream argument, if any
  std::optional<Handle> event;   // the event argument, if any
  // Whether the thread holds the GIL during the call (PyGILState_Check at entry). nullopt: the
  // source cannot tell, and the core goes by the GIL events it has seen from this thread.
  std::optional<bool> holds_gil;
  CompletionWait waits;
  Stack stack;
};

struct DriverCallExit {
  ThreadId thread = 0;
  std::string_view entry_point;
  int result = 0;  // the CUresult
  std::string_view
      result_name;  // cuGetErrorName's answer, e.g. "CUDA_ERROR_NOT_PERMITTED"; may be empty
};

// cuLaunchHostFunc / cuStreamAddCallback / a graph launch put a host function on a stream.
struct HostFunctionEnqueued {
  ThreadId thread = 0;
  HostFunction host_function;
  Stack stack;
};

// The driver's callback thread starts running a host function.
struct HostFunctionBegin {
  ThreadId thread = 0;
  HostFunction host_function;
  Stack stack;
};

// A user lock (threading.Lock, a std::mutex the source can see) is about to be taken. Send it
// before the thread may block, and lock_release after it lets go.
struct LockAcquire {
  ThreadId thread = 0;
  std::uint64_t lock = 0;  // unique while the lock lives; send lock_destroyed before reusing an id
  std::string_view name;
  bool can_block =
      true;  // false for a try-lock or a non-blocking query: it cannot wait, so no edge
  // true for Python locks: CPython releases the GIL while it waits for the lock, so holding the GIL
  // does not order before this lock.
  bool releases_gil_while_waiting = false;
  // Whether the thread holds the GIL now, when the source can tell (a native lock: PyGILState_Check at
  // the acquire; a C library called through ctypes.CDLL runs without it). nullopt: the core goes by the
  // GIL events it has seen from this thread.
  std::optional<bool> holds_gil;
  Stack stack;
};

struct UnraisableInHostFunction {
  ThreadId thread = 0;       // the callback thread whose host function let an exception escape
  std::string_view message;  // the exception, e.g. "ValueError: boom"
  Stack stack;
};

// The source drops its reference to a callable it kept alive for the driver.
struct CallableReleased {
  ThreadId thread = 0;
  std::uint64_t id = 0;  // HostFunction::id
  // The source knows the driver will never run what is still enqueued (the enqueue failed, or the
  // context has a sticky error), so releasing it now is right.
  bool abandoned_runs = false;
  Stack stack;
};

// What the driver profile says about entry points, injected by the source (e.g. from the sim's
// profile JSON or the probe's measurements), so that no call name is hard-coded in the core.
struct DriverBehaviour {
  // Called from another thread while a host function of the same context runs, the call blocks
  // until that host function returns (cuMemAlloc, cuMemFree, cuModuleLoadData, ... on driver
  // 580.159.04). Empty: no call is known to block that way.
  std::function<bool(std::string_view entry_point)> blocks_while_host_function_runs;
  // Called from inside a host function, the call fails at once (CUDA_ERROR_NOT_PERMITTED) instead
  // of waiting, so it waits for nothing there (cuCtxSynchronize on 580.159.04). May be left empty.
  std::function<bool(std::string_view entry_point)> refused_in_host_function;
};

}  // namespace gilsan::checkers
