#include "checkers/sources/sim_source.h"

#include <dlfcn.h>

#include <cstdint>
#include <vector>

#include "checkers/core/host_function_runs.h"
#include "checkers/core/per_thread.h"
#include "checkers/sources/code_address.h"
#include "checkers/core/synchronizing_calls.h"
#include "checkers/sources/thread_identity.h"

namespace gilsan::checkers {
namespace {

Handle as_handle(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

}  // namespace

void SimSource::describe_into(const GilsanSimHostFunction& host_function, HostFunction& described) {
  // The driver's id is a run key, not a callable: it does not identify what the source keeps alive,
  // so the lifetime checker is left to sources that know (the gilsan module).
  described.id = 0;
  described.kind = HostFunctionKind::native;
  const void* code = host_function.fn != nullptr ? reinterpret_cast<const void*>(host_function.fn)
                                                 : reinterpret_cast<const void*>(host_function.callback);
  if (code != nullptr) {
    const HostFunctionIdentity& identity = identities_.of(code);
    described.kind = identity.kind;
    described.callable = identity.callable;
    described.implementation = identity.implementation;
  } else {
    described.callable = "cuStreamAddCallback callback";
    described.implementation = "unknown";
  }
  described.context = as_handle(host_function.context);
  described.stream = as_handle(host_function.stream);
  described.run_key = host_function.id;
  described.user_data = as_handle(host_function.user_data);
}


SimSource::SimSource(Sanitizer& sanitizer, SimSourceOptions options)
    : sanitizer_(sanitizer), options_(std::move(options)) {}

GilsanSimObserver SimSource::observer() {
  GilsanSimObserver observer{};
  observer.abi_version = GILSAN_SIM_OBSERVER_ABI;
  observer.user = this;
  observer.api_enter = [](void* user, const GilsanSimApiCall* call) {
    static_cast<SimSource*>(user)->api_enter(*call);
  };
  observer.api_exit = [](void* user, const GilsanSimApiCall* call, CUresult result) {
    static_cast<SimSource*>(user)->api_exit(*call, result);
  };
  observer.host_function_begin = [](void* user, const GilsanSimHostFunction* host_function) {
    static_cast<SimSource*>(user)->host_function_begin(*host_function);
  };
  observer.host_function_end = [](void* user, const GilsanSimHostFunction* host_function) {
    static_cast<SimSource*>(user)->host_function_end(*host_function);
  };
  observer.host_function_enqueued = [](void* user, const GilsanSimHostFunction* host_function) {
    static_cast<SimSource*>(user)->host_function_enqueued(*host_function);
  };
  return observer;
}

namespace {

// Per thread: the host functions it is running (calls inside one always matter). A plain int: a
// thread_local with a destructor would be used after it, when another library's thread_local destructor
// (cuda.core's primary-context cache, at exit) calls the driver (per_thread.h).
thread_local int t_host_function_depth = 0;

// What each thread reuses from one event to the next (a PerThread: see per_thread.h for why not a
// thread_local).
struct ThreadScratch {
  // The last few entry points asked about and the answers (matters), replaced in turn.
  struct Remembered {
    const SimSource* source = nullptr;
    const char* entry_point = nullptr;
    bool matters = false;
  };
  static constexpr int kRemembered = 4;
  Remembered remembered[kRemembered];
  int next_remembered = 0;
  // The thread's events, made in the same objects every time: assigning a host function's names over
  // the last one's reuses their buffers, where a new event would allocate them (the Sanitizer copies
  // what it keeps).
  HostFunctionEnqueued enqueued;
  HostFunctionBegin begin;
  // For each call the thread is in, innermost last: whether its entry went to the Sanitizer (so that
  // its exit does too).
  std::vector<bool> calls_sent;
};

ThreadScratch& thread_scratch() { return PerThread<ThreadScratch>::get(); }

}  // namespace

bool SimSource::matters(const GilsanSimApiCall& call) {
  if (t_host_function_depth > 0) return true;
  // Drivers pass string literals: the address identifies the entry point. A loop of launches asks about
  // the same few (the launch, a context query) again and again, so each thread remembers its last
  // answers.
  ThreadScratch& scratch = thread_scratch();
  for (const ThreadScratch::Remembered& answer : scratch.remembered) {
    if (answer.source == this && answer.entry_point == call.entry_point) return answer.matters;
  }
  bool answer = false;
  {
    std::lock_guard lock(classes_mutex_);
    auto found = matters_by_name_.find(call.entry_point);
    if (found == matters_by_name_.end()) {
      const std::string_view name = call.entry_point;
      const bool waits = synchronizing_wait(name).has_value() ||
                         (options_.blocks_while_host_function_runs && options_.blocks_while_host_function_runs(name));
      found = matters_by_name_.emplace(call.entry_point, waits).first;
    }
    answer = found->second;
  }
  scratch.remembered[scratch.next_remembered] = ThreadScratch::Remembered{this, call.entry_point, answer};
  scratch.next_remembered = (scratch.next_remembered + 1) % ThreadScratch::kRemembered;
  return answer;
}

void SimSource::api_enter(const GilsanSimApiCall& call) {
  const bool send = matters(call);
  thread_scratch().calls_sent.push_back(send);
  if (!send) return;
  DriverCallEnter event;
  event.thread = current_thread_id();
  event.entry_point = call.entry_point;
  event.context = as_handle(call.context);
  // The sim reports a NULL stream both for "no stream argument" and for the NULL stream; only the
  // wait table needs the difference, and it treats an absent stream of a sync as the NULL stream.
  if (call.stream != nullptr) event.stream = as_handle(call.stream);
  if (call.event != nullptr) event.event = as_handle(call.event);
  if (options_.holds_gil) event.holds_gil = options_.holds_gil();
  event.waits = waits_.waits_of(event.entry_point, event.stream, event.event);
  sanitizer_.driver_call_enter(event);
}

void SimSource::api_exit(const GilsanSimApiCall& call, CUresult result) {
  const std::string_view entry_point = call.entry_point;
  if (result == CUDA_SUCCESS) {
    if (entry_point == "cuEventRecord" && call.event != nullptr) {
      waits_.event_recorded(as_handle(call.event), as_handle(call.stream));
    } else if (entry_point == "cuEventDestroy" && call.event != nullptr) {
      waits_.event_destroyed(as_handle(call.event));
    }
  }
  const int code = static_cast<int>(result);
  // An exit whose entry was not seen (cuInit's, when the source came in during it) is not sent.
  std::vector<bool>& calls_sent = thread_scratch().calls_sent;
  const bool sent = !calls_sent.empty() && calls_sent.back();
  if (!calls_sent.empty()) calls_sent.pop_back();
  if (sent) {
    sanitizer_.driver_call_exit(DriverCallExit{current_thread_id(), entry_point, code, options_.error_names.name(code)});
  } else if (is_sticky_error(code)) {
    sanitizer_.context_failed(as_handle(call.context));
  }
  if (result != CUDA_SUCCESS) return;
  // After the exit: the call that destroyed a stream or context may itself have waited on it.
  if (entry_point == "cuStreamDestroy" && call.stream != nullptr) {
    sanitizer_.stream_destroyed(as_handle(call.context), as_handle(call.stream));
  } else if (entry_point == "cuCtxDestroy" && call.context != nullptr) {
    sanitizer_.context_destroyed(as_handle(call.context));
  }
}

void SimSource::host_function_enqueued(const GilsanSimHostFunction& host_function) {
  HostFunctionEnqueued& event = thread_scratch().enqueued;
  event.thread = current_thread_id();
  describe_into(host_function, event.host_function);
  sanitizer_.host_function_enqueued(event);
}

void SimSource::host_function_begin(const GilsanSimHostFunction& host_function) {
  name_the_callback_thread(sanitizer_);
  ++t_host_function_depth;
  HostFunctionBegin& event = thread_scratch().begin;
  event.thread = current_thread_id();
  describe_into(host_function, event.host_function);
  sanitizer_.host_function_begin(event);
}

void SimSource::host_function_end(const GilsanSimHostFunction&) {
  if (t_host_function_depth > 0) --t_host_function_depth;
  sanitizer_.host_function_end(current_thread_id());
}

SetObserver driver_observer_setter(void* driver) {
  if (driver == nullptr) return nullptr;
  return reinterpret_cast<SetObserver>(::dlsym(driver, "gilsanSimSetObserver"));
}

std::string install_observer(SetObserver set_observer, const GilsanSimObserver* observer, const std::string& driver_name) {
  if (set_observer == nullptr) return driver_name + ": has no gilsanSimSetObserver (not one of gilsan's drivers)";
  if (set_observer(observer) != CUDA_SUCCESS) {
    return driver_name + ": gilsanSimSetObserver refused the observer (ABI version " +
           std::to_string(GILSAN_SIM_OBSERVER_ABI) + ")";
  }
  return "";
}

std::string install_sim_observer(const std::string& library_path, const GilsanSimObserver* observer) {
  void* library = ::dlopen(library_path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return library_path + ": the simulated driver is not loaded in this process";
  std::string error = install_observer(driver_observer_setter(library), observer, library_path);
  ::dlclose(library);  // drops only the reference RTLD_NOLOAD added
  return error;
}

}  // namespace gilsan::checkers
