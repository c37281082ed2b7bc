#include "harness/pymodule/driver_call.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>

#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/module_errors.h"
#include "harness/pymodule/stream_payload_registry.h"

namespace gilsan::pymodule {
namespace {

struct InjectedError {
  CUresult result = CUDA_SUCCESS;
  unsigned long long pass_first = 0;  // calls that still go through before the failures start
  unsigned long long remaining = 0;
};

struct Injections {
  std::mutex mutex;
  std::map<std::string, InjectedError, std::less<>> by_entry_point;
  std::atomic<bool> any{false};  // keeps the common path free of the mutex
};

Injections& injections() {
  static Injections* const instance = new Injections();
  return *instance;
}

// Contexts whose sticky error the module has raised to Python at least once.
struct FailedContexts {
  std::mutex mutex;
  std::unordered_set<CUcontext> raised;
};

FailedContexts& failed_contexts() {
  static FailedContexts* const instance = new FailedContexts();
  return *instance;
}

bool failure_raised_before(CUcontext context) {
  std::lock_guard lock(failed_contexts().mutex);
  return failed_contexts().raised.contains(context);
}

// `context`, or the calling thread's current context when it is null (null if there is none).
CUcontext context_or_current(CUcontext context) {
  const DriverTable* table = opened_driver_table();
  if (context == nullptr && table != nullptr &&
      call_driver("cuCtxGetCurrent", Gil::Release, [&] { return table->cuCtxGetCurrent(&context); }) != CUDA_SUCCESS)
    context = nullptr;
  return context;
}

}  // namespace

std::optional<CUresult> take_injected_error(const char* entry_point) {
  Injections& all = injections();
  if (!all.any.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(all.mutex);
  auto found = all.by_entry_point.find(std::string_view(entry_point));
  if (found == all.by_entry_point.end()) return std::nullopt;
  if (found->second.pass_first > 0) {
    --found->second.pass_first;
    return std::nullopt;
  }
  const CUresult result = found->second.result;
  if (--found->second.remaining == 0) all.by_entry_point.erase(found);
  all.any.store(!all.by_entry_point.empty(), std::memory_order_release);
  return result;
}

bool check_driver(CUresult result, const char* entry_point, CUcontext context) {
  if (result == CUDA_SUCCESS) return true;
  if (is_sticky_error(result)) {
    context = context_or_current(context);
    if (context != nullptr) {
      abandon_stream_payloads(context);
      std::lock_guard lock(failed_contexts().mutex);
      failed_contexts().raised.insert(context);
    }
  }
  set_cuda_error(result, entry_point);
  return false;
}

bool check_release(CUresult result, const char* entry_point, CUcontext context) {
  if (is_sticky_error(result)) {
    context = context_or_current(context);
    if (context != nullptr && failure_raised_before(context)) return true;
  }
  return check_driver(result, entry_point, context);
}

void forget_context_failure(CUcontext context) {
  std::lock_guard lock(failed_contexts().mutex);
  failed_contexts().raised.erase(context);
}

PyObject* inject_error(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"entry_point", "code", "count", "after", nullptr};
  const char* entry_point = nullptr;
  int code = 0;
  unsigned long long count = 1;
  unsigned long long after = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "si|KK:_inject_error", const_cast<char**>(keywords), &entry_point,
                                   &code, &count, &after))
    return nullptr;
  if (code == CUDA_SUCCESS) {
    PyErr_SetString(PyExc_ValueError, "_inject_error: code must be a failing CUresult, not CUDA_SUCCESS (0)");
    return nullptr;
  }
  Injections& all = injections();
  std::lock_guard lock(all.mutex);
  if (count == 0) {
    all.by_entry_point.erase(std::string(entry_point));
  } else {
    all.by_entry_point[entry_point] = InjectedError{static_cast<CUresult>(code), after, count};
  }
  all.any.store(!all.by_entry_point.empty(), std::memory_order_release);
  Py_RETURN_NONE;
}

}  // namespace gilsan::pymodule
