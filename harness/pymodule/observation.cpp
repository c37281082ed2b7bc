#include "harness/pymodule/observation.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "checkers/sources/sanitizer_hooks.h"
#include "harness/board/board_writer.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/observation_shared.h"

namespace gilsan::pymodule {
namespace {

// The board records GIL *states*; the sanitizer wants acquire/release *pairs*. The module reports
// "holds" again around a hold_gil=True call, so this thread's last state turns states into pairs.
thread_local bool t_sanitizer_sees_gil_held = false;

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

void observe_activity(const char* text) { board::set_activity(text); }

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

void observe_host_function_enqueued(HostPayload* payload, CUstream stream, CUcontext context) {
  payload->maybe_pending = board::note_host_function_enqueued(info_of(payload, payload->serial, stream, context));
  if (const GilsanSanitizerHooks* hooks = sanitizer()) {
    const GilsanSanitizerHostFunction host_function = sanitizer_host_function(payload, payload->serial, stream, context, true);
    hooks->host_function_enqueued(&host_function);
  }
}

void observe_host_function_dropped(const HostPayload* payload) {
  board::note_host_function_dropped(payload->serial, kImplementation);
  if (const GilsanSanitizerHooks* hooks = sanitizer()) hooks->host_function_dropped(payload->serial);
}

void observe_host_function_begin(const HostPayload* payload) {
  ++t_host_function_depth;
  board::HostFunctionInfo info = info_of(payload, payload->serial, payload->stream, payload->context);
  info.maybe_pending = payload->maybe_pending;
  board::begin_host_function(info);
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
