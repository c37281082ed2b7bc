#include "harness/child/scenario_sanitizer.h"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/scenario/child_protocol.h"

#ifdef GILSAN_WITH_SANITIZER
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "checkers/core/per_thread.h"
#include "checkers/core/sanitizer.h"
#include "checkers/frontend/process_front_end.h"
#include "checkers/sources/entry_point_names.h"
#include "checkers/sources/native_stack.h"
#include "checkers/sources/python_gil_probe.h"
#include "checkers/sources/sanitizer_hooks.h"
#include "checkers/sources/sim_source.h"
#include "checkers/sources/thread_identity.h"
#include "harness/child/scenario_stacks.h"
#endif

namespace gilsan {
namespace {

std::string_view environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

bool scenario_sanitizer_requested() { return environment(kSanitizeVariable) == "1"; }


#ifdef GILSAN_WITH_SANITIZER
namespace {

using namespace checkers;

// The Sanitizer, its text file (the parent shows it in the run report), the profile and the options
// are the front end's (checkers/frontend/process_front_end.h).
struct ChildSanitizer : ProcessFrontEnd {
  PythonGilProbe gil_probe;
  // Made when the module opens its driver (with that driver's CUresult names); never freed.
  std::atomic<SimSource*> source{nullptr};
  GilsanSimObserver observer{};
  // The simulated driver's observer sees every driver call of the process (the module's, ctypes',
  // CuPy's); the module's own call hooks are then redundant and ignored.
  std::atomic<bool> driver_observed{false};
  // The stacks the sanitizer keeps (after gil_probe, which it reads).
  ScenarioStacks stacks{gil_probe};
};

// Never freed: driver callback threads may still report until the child _exits.
ChildSanitizer* g_child = nullptr;

// Every field is set: `host_function` may hold the thread's last one, whose string buffers are reused.
void describe_into(const GilsanSanitizerHostFunction& record, HostFunction& host_function) {
  host_function.id = record.id;
  host_function.kind = record.python != 0 ? HostFunctionKind::python : HostFunctionKind::native;
  host_function.implementation = "gilsan";
  host_function.callable = record.description != nullptr ? record.description : "host function";
  host_function.context = record.context;
  host_function.stream = record.stream_known != 0 ? std::optional<Handle>(record.stream) : std::nullopt;
  host_function.run_key = 0;
  host_function.user_data = record.user_data;
}

// The module's call as the sim observer would have reported it: the source then computes waits,
// the GIL state (PythonGilProbe) and CUresult names exactly as for the simulated driver.
struct ModuleCall {
  std::string entry_point;
  GilsanSimApiCall call{};
};
// A PerThread, not a thread_local: a thread's last calls can come from thread_local destructors
// (per_thread.h).
ModuleCall& module_call() { return PerThread<ModuleCall>::get(); }

// The source that turns a driver's observer hooks (or the module's own calls) into events; made once,
// with that driver's CUresult names.
SimSource* make_source(void* driver_handle) {
  SimSourceOptions source_options;
  source_options.error_names = driver_error_names(driver_handle);
  source_options.holds_gil = [] { return g_child->gil_probe.holds_gil(); };
  source_options.blocks_while_host_function_runs = g_child->behaviour.blocks_while_host_function_runs;
  auto* source = new SimSource(*g_child->sanitizer, std::move(source_options));
  g_child->observer = source->observer();
  g_child->source.store(source);
  return source;
}

// Before the interpreter starts: the libcuda.so.1 this process will use (the runner puts the simulated
// driver, or its forwarding driver in front of the real one, first on the library path) is watched
// from its first call, whoever makes it (the module, ctypes, CuPy, cuda.bindings). A driver without
// gilsanSimSetObserver (the real one, run without the forwarding driver) leaves the module's own
// calls as the only ones seen.
void attach_driver_source() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // kept open for the process
  if (driver == nullptr) return;
  const SetObserver set_observer = driver_observer_setter(driver);
  if (set_observer == nullptr) {
    ::dlclose(driver);
    return;
  }
  make_source(driver);
  if (const std::string error = install_observer(set_observer, &g_child->observer, "libcuda.so.1"); !error.empty()) {
    std::fprintf(stderr, "gilsan: sanitizer: %s; only the gilsan module's calls are checked\n", error.c_str());
    return;
  }
  g_child->driver_observed.store(true);
}

void driver_opened(int is_sim, const char* library) {
  if (g_child->source.load() != nullptr) return;  // watched from the start, or the module's second open
  void* handle = library != nullptr ? ::dlopen(library, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  make_source(handle);
  if (handle != nullptr) ::dlclose(handle);  // drops only the reference RTLD_NOLOAD added
  if (is_sim == 0 || library == nullptr) return;
  const std::string error = install_sim_observer(library, &g_child->observer);
  if (!error.empty()) {
    std::fprintf(stderr, "gilsan: sanitizer: %s; only the gilsan module's calls are checked\n", error.c_str());
    return;
  }
  g_child->driver_observed.store(true);
}

void call_enter(const char* entry_point, unsigned long long context, unsigned long long stream,
                unsigned long long event) {
  SimSource* source = g_child->source.load();
  if (source == nullptr || g_child->driver_observed.load()) return;
  ModuleCall& current = module_call();
  current.entry_point = std::string(split_entry_point_name(entry_point).base);
  current.call.entry_point = current.entry_point.c_str();
  current.call.context = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(context));
  current.call.stream = reinterpret_cast<CUstream>(static_cast<std::uintptr_t>(stream));
  current.call.event = reinterpret_cast<CUevent>(static_cast<std::uintptr_t>(event));
  source->api_enter(current.call);
}

void call_exit(const char*, int result) {
  SimSource* source = g_child->source.load();
  if (source == nullptr || g_child->driver_observed.load()) return;
  source->api_exit(module_call().call, static_cast<CUresult>(result));
}

void gil_acquire_begin() { g_child->sanitizer->gil_acquire_begin(current_thread_id()); }
void gil_acquired() { g_child->sanitizer->gil_acquired(current_thread_id()); }
void gil_released() { g_child->sanitizer->gil_released(current_thread_id()); }

// The module's events are made in the same objects on each thread every time: a launch loop then
// allocates no strings for them (the Sanitizer copies what it keeps). A PerThread, not a thread_local:
// the module's last events of a thread can come from its thread_local destructors (per_thread.h).
struct ModuleEvents {
  HostFunctionEnqueued enqueued;
  HostFunctionBegin begin;
};

void host_function_enqueued(const GilsanSanitizerHostFunction* record) {
  HostFunctionEnqueued& event = PerThread<ModuleEvents>::get().enqueued;
  event.thread = current_thread_id();
  describe_into(*record, event.host_function);
  g_child->sanitizer->host_function_enqueued(event);
}

void host_function_dropped(unsigned long long id) {
  g_child->sanitizer->callable_released({current_thread_id(), id, true, {}});
}

void host_function_begin(const GilsanSanitizerHostFunction* record) {
  name_the_callback_thread(*g_child->sanitizer);
  HostFunctionBegin& event = PerThread<ModuleEvents>::get().begin;
  event.thread = current_thread_id();
  describe_into(*record, event.host_function);
  g_child->sanitizer->host_function_begin(event);
}

void host_function_end() { g_child->sanitizer->host_function_end(current_thread_id()); }

void host_function_skipped() { g_child->sanitizer->host_function_skipped(current_thread_id()); }

void unraisable_in_host_function(const char* message) {
  g_child->sanitizer->unraisable_in_host_function({current_thread_id(), message != nullptr ? message : "", {}});
}

void interpreter_finalizing() { g_child->sanitizer->interpreter_finalization_began(); }

void callable_released(unsigned long long id, int abandoned_runs) {
  g_child->sanitizer->callable_released({current_thread_id(), id, abandoned_runs != 0, {}});
}

void graph_holds(unsigned long long graph, const GilsanSanitizerHostFunction* record) {
  HostFunction host_function;
  describe_into(*record, host_function);
  g_child->sanitizer->graph_holds_callable(graph, host_function);
}

void graph_destroyed(unsigned long long graph) { g_child->sanitizer->graph_destroyed(graph); }

void set_python_stack(GilsanPythonStackFunction write_stack) { g_child->stacks.set_python_stack(write_stack); }

const GilsanSanitizerHooks kHooks = {
    GILSAN_SANITIZER_HOOKS_ABI, driver_opened,          call_enter,           call_exit,
    gil_acquire_begin,          gil_acquired,           gil_released,         host_function_enqueued,
    host_function_dropped,      host_function_begin,    host_function_end,    host_function_skipped,
    unraisable_in_host_function,
    interpreter_finalizing,     callable_released,      graph_holds,          graph_destroyed,
    set_python_stack,
};

}  // namespace
}  // namespace gilsan

// Looked up by the module with dlsym (the gilsan executable exports its symbols).
extern "C" __attribute__((visibility("default"), used)) const GilsanSanitizerHooks* gilsan_sanitizer_hooks() {
  return gilsan::g_child != nullptr ? &gilsan::kHooks : nullptr;
}

namespace gilsan {

void start_scenario_sanitizer() {
  if (g_child != nullptr) return;
  auto child = std::make_unique<ChildSanitizer>();
  try {
    prepare_native_stack_capture();
    FrontEndSettings settings;  // scenarios start with every checker on (gil-held-blocking-call too)
    settings.forced_report_path = std::string(environment(kSanitizerReportVariable));
    const ScenarioStacks* stacks = &child->stacks;
    settings.capture_stack = [stacks](ThreadId thread) { return stacks->capture(thread); };
    settings.capture_enqueue_stack = [stacks](ThreadId thread) { return stacks->capture_enqueue(thread); };
    settings.symbolize_stack = ScenarioStacks::symbolize;
    start_front_end(*child, std::move(settings));
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("sanitizer: ") + error.what());
  }
  child->sanitizer->name_thread(current_thread_id(), "main");
  g_child = child.release();
  attach_driver_source();
}

void scenario_interpreter_finished() {
  if (g_child != nullptr) g_child->sanitizer->interpreter_finished();
}

checkers::Sanitizer* scenario_sanitizer_instance() { return g_child != nullptr ? g_child->sanitizer.get() : nullptr; }

std::size_t scenario_host_functions_waiting() {
  return g_child != nullptr ? g_child->sanitizer->waiting_host_functions() : 0;
}

int finish_scenario_sanitizer(int status) {
  if (g_child == nullptr) return status;
  const RunSummary summary = g_child->sanitizer->finish();
  g_child->text_file.flush();
  return status == 0 ? summary.exit_code : status;
}

#else  // a build without the checkers: the parent is told at start, not left guessing

void start_scenario_sanitizer() {
  throw std::runtime_error("sanitizer: this gilsan was built without checkers/sources; use --sanitize off");
}

int finish_scenario_sanitizer(int status) { return status; }

void scenario_interpreter_finished() {}

checkers::Sanitizer* scenario_sanitizer_instance() { return nullptr; }

std::size_t scenario_host_functions_waiting() { return 0; }

#endif

}  // namespace gilsan
