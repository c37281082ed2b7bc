#include "harness/pymodule/observation.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "checkers/sources/sanitizer_hooks.h"
#include "harness/board/board_writer.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/python_stack.h"

namespace gilsan::pymodule {
namespace {

constexpr const char* kImplementation = "gilsan";
// Graph host nodes share one pending id (see observe_graph_host_functions_enqueued): the address of
// a private object, far above any payload's serial number.
const char kGraphHostFunctionTag = 0;

std::uint64_t as_id(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// The sanitizer of the process, when one runs (the scenario child of `gilsan run`): found once by
// name, so the module links nothing of it and works as an ordinary extension without one.
const GilsanSanitizerHooks* sanitizer() {
  static const GilsanSanitizerHooks* const hooks = [] {
    auto lookup = reinterpret_cast<GilsanSanitizerHooksFunction>(::dlsym(RTLD_DEFAULT, GILSAN_SANITIZER_HOOKS_SYMBOL));
    const GilsanSanitizerHooks* found = lookup != nullptr ? lookup() : nullptr;
    if (found == nullptr || found->abi_version != GILSAN_SANITIZER_HOOKS_ABI) return static_cast<const GilsanSanitizerHooks*>(nullptr);
    found->set_python_stack(&write_python_stack);
    return found;
  }();
  return hooks;
}

// The board records GIL *states*; the sanitizer wants acquire/release *pairs*. The module reports
// "holds" again around a hold_gil=True call, so this thread's last state turns states into pairs.
thread_local bool t_sanitizer_sees_gil_held = false;

GilsanSanitizerHostFunction sanitizer_host_function(const HostPayload* payload, std::uint64_t id, CUstream stream,
                                                    CUcontext context, bool stream_known) {
  GilsanSanitizerHostFunction host_function{};
  host_function.id = id;
  host_function.python = payload == nullptr || payload->kind == HostPayload::Kind::PythonCall ? 1 : 0;
  host_function.description = payload != nullptr && payload->description[0] != '\0' ? payload->description : nullptr;
  host_function.context = as_id(context);
  host_function.stream = as_id(stream);
  host_function.stream_known = stream_known ? 1 : 0;
  host_function.user_data = as_id(payload);
  return host_function;
}

// Which graphs and execs own which Python payloads, followed only for a sanitizer: it needs to know
// the owners (graph_holds / graph_destroyed), what each launch runs, and which runs a failed launch took
// back. Module calls (GIL held) and user-object destructors (driver threads) meet here, so a mutex
// guards it; hooks are called under it, which keeps each owner's events in order, and the sanitizer
// never calls back.
struct FollowedCallables {
  struct Payload {
    int owners = 0;              // live graphs and execs holding it; 0: its destructor is due
    long long failed_runs = 0;   // runs counted as enqueued by launches that failed
  };
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::vector<const HostPayload*>> owned;  // by owner id
  std::unordered_map<const HostPayload*, Payload> payloads;
  std::unordered_map<CUstream, CUgraph> capturing;  // streams capturing a graph with followed payloads
};

// Never destroyed: user-object destructors run on driver threads while the process exits.
FollowedCallables& followed() {
  static auto* const instance = new FollowedCallables();
  return *instance;
}

// A graph and an exec may share a handle value: their owner ids differ in the low bit.
std::uint64_t graph_owner(CUgraph graph) { return as_id(graph) << 1; }
std::uint64_t exec_owner(CUgraphExec exec) { return (as_id(exec) << 1) | 1; }

bool followed_payload(const HostPayload* payload) {
  return payload != nullptr && payload->kind == HostPayload::Kind::PythonCall;
}

// A graph host node's record: the payload's serial is the id, and any launch stream may run it.
GilsanSanitizerHostFunction graph_node_record(const HostPayload* payload) {
  GilsanSanitizerHostFunction host_function{};
  host_function.id = payload->serial;
  host_function.python = 1;
  host_function.description = payload->description[0] != '\0' ? payload->description : nullptr;
  host_function.stream_known = 0;
  host_function.user_data = as_id(payload);
  return host_function;
}

// Under followed().mutex: `owner` is gone; payloads it was the last owner of now wait for their
// destructor, which the exit drain waits for.
void forget_owner_locked(const GilsanSanitizerHooks& hooks, FollowedCallables& state, std::uint64_t owner) {
  const auto found = state.owned.find(owner);
  if (found == state.owned.end()) return;
  long long due = 0;
  for (const HostPayload* payload : found->second) {
    const auto record = state.payloads.find(payload);
    if (record != state.payloads.end() && record->second.owners > 0 && --record->second.owners == 0) ++due;
  }
  state.owned.erase(found);
  hooks.graph_destroyed(owner);
  if (due != 0) user_object_destructors_due(due);
}

// How deep this thread is in our trampolines: a driver call made from a host function must not
// relabel the driver's callback thread as a Python thread.
thread_local int t_host_function_depth = 0;
thread_local bool t_role_said = false;

void say_role_once() {
  if (t_role_said || t_host_function_depth > 0) return;
  t_role_said = true;
  const bool main_thread = ::syscall(SYS_gettid) == ::getpid();
  board::set_role(main_thread ? board::Role::Main : board::Role::Python);
}

board::HostFunctionInfo info_of(const HostPayload* payload, std::uint64_t id, CUstream stream, CUcontext context) {
  board::HostFunctionInfo info;
  info.id = id;
  info.context = as_id(context);
  info.stream = as_id(stream);
  info.kind = payload != nullptr && payload->kind == HostPayload::Kind::PythonCall ? board::HostFunctionKind::Python
                                                                                   : board::HostFunctionKind::Native;
  info.implementation = kImplementation;
  info.description = payload != nullptr && payload->description[0] != '\0' ? payload->description : nullptr;
  return info;
}

// "file.py:LINE name" for a function, else "name" (a builtin, a callable object). Never raises.
void describe_callable(PyObject* callable, char* out, std::size_t size) {
  PyObject* name = PyObject_GetAttrString(callable, "__qualname__");
  if (name == nullptr) {
    PyErr_Clear();
    name = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(callable)), "__qualname__");
  }
  const char* name_text = name != nullptr ? PyUnicode_AsUTF8(name) : nullptr;
  if (name_text == nullptr) PyErr_Clear();
  PyObject* code = PyObject_GetAttrString(callable, "__code__");
  if (code == nullptr) PyErr_Clear();
  if (code != nullptr && PyCode_Check(code)) {
    auto* code_object = reinterpret_cast<PyCodeObject*>(code);
    const char* file = PyUnicode_AsUTF8(code_object->co_filename);
    if (file == nullptr) PyErr_Clear();
    const char* base = file != nullptr ? std::strrchr(file, '/') : nullptr;
    std::snprintf(out, size, "%s:%d %s", base != nullptr ? base + 1 : (file != nullptr ? file : "?"),
                  code_object->co_firstlineno, name_text != nullptr ? name_text : "?");
  } else {
    std::snprintf(out, size, "%s", name_text != nullptr ? name_text : "?");
  }
  Py_XDECREF(code);
  Py_XDECREF(name);
}

// "Type: text" of the exception set on this thread, which is left set. Never raises.
void describe_pending_exception(char* out, std::size_t size) {
#if PY_VERSION_HEX >= 0x030C0000
  PyObject* exception = PyErr_GetRaisedException();
#else
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  PyObject* exception = value;
#endif
  const char* type_name = exception != nullptr ? Py_TYPE(exception)->tp_name : "?";
  PyObject* text = exception != nullptr ? PyObject_Str(exception) : nullptr;
  const char* text_utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
  if (text_utf8 == nullptr) PyErr_Clear();
  std::snprintf(out, size, "%s: %s", type_name, text_utf8 != nullptr ? text_utf8 : "");
  Py_XDECREF(text);
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exception);
#else
  PyErr_Restore(type, value, traceback);
#endif
}

}  // namespace

void observe_module_imported() {
  sanitizer();  // looked up while the import holds the GIL, before any driver thread can ask
  board::attach();
  say_role_once();
}

void observe_driver_opened(bool simulated, const char* library) {
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->driver_opened(simulated ? 1 : 0, library);
}

void observe_interpreter_finalizing() {
  board::set_interpreter_finalizing();
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->interpreter_finalizing();
}

void observe_call_enter(const char* entry_point, const DriverCallTarget& target) {
  say_role_once();
  board::enter_call(entry_point, as_id(target.context), as_id(target.stream), as_id(target.event));
  if (const GilsanSanitizerHooks* hooks = sanitizer())
    hooks->call_enter(entry_point, as_id(target.context), as_id(target.stream), as_id(target.event));
}

void observe_call_exit(const char* entry_point, CUresult result) {
  board::exit_call();
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->call_exit(entry_point, static_cast<int>(result));
}

void observe_gil_released() {
  board::set_gil_state(board::GilState::Released);
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || !t_sanitizer_sees_gil_held) return;
  t_sanitizer_sees_gil_held = false;
  hooks->gil_released();
}

void observe_gil_waiting() {
  board::set_gil_state(board::GilState::Waiting);
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks != nullptr && !t_sanitizer_sees_gil_held) hooks->gil_acquire_begin();
}

void observe_gil_held() {
  board::set_gil_state(board::GilState::Holds);
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || t_sanitizer_sees_gil_held) return;
  t_sanitizer_sees_gil_held = true;
  hooks->gil_acquired();
}

void observe_payload_created(HostPayload* payload) {
  if (payload->callable == nullptr || (!board::enabled() && sanitizer() == nullptr)) return;
  describe_callable(payload->callable, payload->description, sizeof payload->description);
}

void observe_host_function_enqueued(const HostPayload* payload, CUstream stream, CUcontext context) {
  board::note_host_function_enqueued(info_of(payload, payload->serial, stream, context));
  if (const GilsanSanitizerHooks* hooks = sanitizer()) {
    const GilsanSanitizerHostFunction host_function = sanitizer_host_function(payload, payload->serial, stream, context, true);
    hooks->host_function_enqueued(&host_function);
  }
}

void observe_host_function_dropped(const HostPayload* payload) {
  board::note_host_function_dropped(payload->serial, kImplementation);
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->host_function_dropped(payload->serial);
}

void observe_graph_host_functions_enqueued(CUgraphExec exec, long long count, CUstream stream, CUcontext context) {
  for (long long i = 0; i < count; ++i)
    board::note_host_function_enqueued(info_of(nullptr, as_id(&kGraphHostFunctionTag), stream, context));
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(exec_owner(exec));
  if (found == state.owned.end()) return;
  for (const HostPayload* payload : found->second) {
    const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
    hooks->host_function_enqueued(&host_function);
  }
}

void observe_graph_host_functions_dropped(CUgraphExec exec, long long count) {
  for (long long i = 0; i < count; ++i) board::note_host_function_dropped(as_id(&kGraphHostFunctionTag), kImplementation);
  if (sanitizer() == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(exec_owner(exec));
  if (found == state.owned.end()) return;
  for (const HostPayload* payload : found->second) ++state.payloads[payload].failed_runs;
}

void observe_payload_released(const HostPayload* payload) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks != nullptr && followed_payload(payload)) hooks->callable_released(payload->serial, 0);
}

void observe_graph_host_node_added(CUgraph graph, const HostPayload* payload, CUstream capturing_stream) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || !followed_payload(payload)) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  state.owned[graph_owner(graph)].push_back(payload);
  ++state.payloads[payload].owners;
  if (capturing_stream != nullptr) state.capturing[capturing_stream] = graph;
  const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
  hooks->graph_holds(graph_owner(graph), &host_function);
}

void observe_graph_instantiated(CUgraph graph, CUgraphExec exec) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.owned.find(graph_owner(graph));
  if (found == state.owned.end()) return;
  // A reference, unlike the iterator, stays valid when the insertion below rehashes the map.
  const std::vector<const HostPayload*>& graph_payloads = found->second;
  const std::uint64_t owner = exec_owner(exec);
  // A fresh exec: a stale list at a reused handle was erased when that exec died.
  state.owned[owner] = graph_payloads;
  for (const HostPayload* payload : graph_payloads) {
    ++state.payloads[payload].owners;
    const GilsanSanitizerHostFunction host_function = graph_node_record(payload);
    hooks->graph_holds(owner, &host_function);
  }
}

void observe_graph_destroyed(CUgraph graph) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  forget_owner_locked(*hooks, state, graph_owner(graph));
}

void observe_graph_exec_destroyed(CUgraphExec exec) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  forget_owner_locked(*hooks, state, exec_owner(exec));
}

void observe_capture_ended(CUstream stream, bool graph_returned) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.capturing.find(stream);
  if (found == state.capturing.end()) return;
  const CUgraph graph = found->second;
  state.capturing.erase(found);
  // The driver destroyed the graph inside cuStreamEndCapture, so its destructors may already have run:
  // a known gap (docs/sanitizer.md), as the module learns of the failure only now.
  if (!graph_returned) forget_owner_locked(*hooks, state, graph_owner(graph));
}

void observe_graph_payload_released(const HostPayload* payload) {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr || !followed_payload(payload)) return;
  FollowedCallables& state = followed();
  std::lock_guard lock(state.mutex);
  const auto found = state.payloads.find(payload);
  if (found == state.payloads.end()) return;  // never owned by a graph as far as we know (a failed add)
  const bool was_due = found->second.owners == 0;
  const bool abandoned_runs = found->second.failed_runs > 0;
  state.payloads.erase(found);
  hooks->callable_released(payload->serial, abandoned_runs ? 1 : 0);
  if (was_due) user_object_destructors_due(-1);
}

void observe_host_function_begin(const HostPayload* payload) {
  ++t_host_function_depth;
  board::begin_host_function(info_of(payload, payload->serial, payload->stream, payload->context));
  if (const GilsanSanitizerHooks* hooks = sanitizer()) {
    const GilsanSanitizerHostFunction host_function =
        sanitizer_host_function(payload, payload->serial, payload->stream, payload->context, true);
    hooks->host_function_begin(&host_function);
  }
}

void observe_graph_host_function_begin(const HostPayload* payload) {
  ++t_host_function_depth;
  board::HostFunctionInfo info = info_of(payload, as_id(&kGraphHostFunctionTag), nullptr, nullptr);
  board::begin_host_function(info);
  if (const GilsanSanitizerHooks* hooks = sanitizer()) {
    // The payload is the id the lifetime checker follows (graph_holds); any launch stream may run it.
    const GilsanSanitizerHostFunction host_function = sanitizer_host_function(payload, payload->serial, nullptr, nullptr, false);
    hooks->host_function_begin(&host_function);
  }
}

void observe_host_function_skipped() {
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->host_function_skipped();
}

void observe_host_function_end() {
  board::end_host_function();
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->host_function_end();
  if (t_host_function_depth > 0) --t_host_function_depth;
}

void observe_host_function_raised() {
  const GilsanSanitizerHooks* hooks = sanitizer();
  if (hooks == nullptr) return;
  char message[512];
  describe_pending_exception(message, sizeof message);
  hooks->unraisable_in_host_function(message);
}

void observe_event_recorded(CUevent event, CUstream stream, CUcontext context) {
  board::note_event_recorded(as_id(event), as_id(stream), as_id(context));
}

void observe_device_work_enqueued(unsigned long long microseconds) {
  board::expect_device_work(static_cast<std::uint64_t>(microseconds) * 1000);
}

}  // namespace gilsan::pymodule
