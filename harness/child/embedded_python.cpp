#include "harness/child/python_api.h"
// python_api.h first: Python.h must precede the standard headers.
#include "harness/child/embedded_python.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "harness/board/board_writer.h"

namespace gilsan {
namespace {

using python::Ref;

constexpr const char* kHookCapsuleName = "gilsan.runner.ChildReportWriter";

void check(PyStatus status, const char* step) {
  if (PyStatus_Exception(status)) {
    std::string message = std::string(step) + ": ";
    message += status.err_msg != nullptr ? status.err_msg : "failed";
    if (status.func != nullptr) message = std::string(status.func) + ": " + message;
    throw PythonError("cannot start Python: " + message);
  }
}

// PyConfig owns heap strings; this clears it on every path.
struct ConfigGuard {
  PyConfig config;
  ConfigGuard() { PyConfig_InitIsolatedConfig(&config); }
  ~ConfigGuard() { PyConfig_Clear(&config); }
};

void run_python_or_throw(bool ok, const std::string& what) {
  if (!ok) throw PythonError(what + ": " + python::describe_and_clear_error());
}

// sys.unraisablehook(unraisable): report, then chain to sys.__unraisablehook__.
PyObject* unraisable_hook(PyObject* capsule, PyObject* unraisable) {
  auto* writer = static_cast<ChildReportWriter*>(PyCapsule_GetPointer(capsule, kHookCapsuleName));
  if (writer == nullptr) return nullptr;
  UnraisableRecord record;
  auto attribute = [&](const char* name) { return Ref(PyObject_GetAttrString(unraisable, name)); };
  Ref type = attribute("exc_type");
  Ref value = attribute("exc_value");
  Ref message = attribute("err_msg");
  Ref object = attribute("object");
  PyErr_Clear();
  if (type && type.get() != Py_None) record.type = python::type_name_of(type.get());
  if (value && value.get() != Py_None) record.message = python::str_of(value.get());
  record.context = message && message.get() != Py_None ? python::str_of(message.get()) : "Exception ignored in";
  if (object && object.get() != Py_None) record.object = python::repr_of(object.get());
  writer->unraisable(record);

  PyObject* default_hook = PySys_GetObject("__unraisablehook__");  // borrowed
  if (default_hook == nullptr) Py_RETURN_NONE;
  return PyObject_CallOneArg(default_hook, unraisable);
}

PyMethodDef unraisable_hook_definition = {"gilsan_runner_unraisablehook", unraisable_hook, METH_O,
                                          "Reports an unraisable exception to gilsan, then prints it."};

std::string read_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw PythonError("cannot open " + path);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

// What python does with SystemExit's code: None is 0, an int is itself, anything else is printed
// to stderr and is 1.
int exit_code_of(PyObject* system_exit) {
  Ref code(PyObject_GetAttrString(system_exit, "code"));
  if (!code) {
    PyErr_Clear();
    return 1;
  }
  if (code.get() == Py_None) return 0;
  if (PyLong_Check(code.get())) {
    const long value = PyLong_AsLong(code.get());
    if (value == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return 1;
    }
    return static_cast<int>(value);
  }
  if (PyObject* err = PySys_GetObject("stderr"); err != nullptr && err != Py_None) {
    if (PyFile_WriteObject(code.get(), err, Py_PRINT_RAW) != 0 || PyFile_WriteString("\n", err) != 0) PyErr_Clear();
  }
  return 1;
}

}  // namespace

EmbeddedPython::EmbeddedPython(const InterpreterSettings& settings) {
  // UTF-8 mode: the child's stdio are pipes and its locale may be "C"; a scenario printing non-ASCII
  // text must not fail with UnicodeEncodeError because of where it runs.
  PyPreConfig preconfig;
  PyPreConfig_InitIsolatedConfig(&preconfig);
  preconfig.utf8_mode = 1;
  check(Py_PreInitialize(&preconfig), "pre-initialization");

  ConfigGuard guard;
  PyConfig& config = guard.config;
  config.install_signal_handlers = 1;
  config.buffered_stdio = 0;
  config.site_import = 0;
  config.write_bytecode = 0;  // no __pycache__ folders in the scenario tree from a test run
  config.parse_argv = 0;
  check(PyConfig_SetBytesString(&config, &config.program_name, settings.executable.c_str()), "program name");
  check(PyConfig_SetBytesString(&config, &config.executable, settings.executable.c_str()), "executable");
  char* argv[] = {const_cast<char*>(settings.scenario_path.c_str())};
  check(PyConfig_SetBytesArgv(&config, 1, argv), "sys.argv");
  check(Py_InitializeFromConfig(&config), "initialization");

  PyObject* path = PySys_GetObject("path");  // borrowed
  Ref folder(PyUnicode_DecodeFSDefault(settings.scenario_folder.c_str()));
  run_python_or_throw(path != nullptr && folder && PyList_Insert(path, 0, folder.get()) == 0,
                      "cannot put the scenario's folder on sys.path");
  if (settings.virtualenv) {
    // With site.py not run at start-up, its venv() step is done here: sys.prefix names the virtualenv.
    Ref prefix(PyUnicode_DecodeFSDefault(settings.virtualenv->c_str()));
    run_python_or_throw(prefix && PySys_SetObject("prefix", prefix.get()) == 0 &&
                            PySys_SetObject("exec_prefix", prefix.get()) == 0,
                        "cannot set sys.prefix");
  }
  if (settings.site_packages) {
    Ref site(PyImport_ImportModule("site"));
    Ref added(site ? PyObject_CallMethod(site.get(), "addsitedir", "s", settings.site_packages->c_str()) : nullptr);
    run_python_or_throw(added != nullptr, "cannot add " + *settings.site_packages + " to sys.path");
  }
}

EmbeddedPython::~EmbeddedPython() {
  if (!finalized_) finalize();
}

std::string EmbeddedPython::version() const {
  return std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION) + "." +
         std::to_string(PY_MICRO_VERSION);
}

void EmbeddedPython::report_unraisables_to(ChildReportWriter& writer) {
  Ref capsule(PyCapsule_New(&writer, kHookCapsuleName, nullptr));
  Ref hook(capsule ? PyCFunction_New(&unraisable_hook_definition, capsule.get()) : nullptr);
  run_python_or_throw(hook && PySys_SetObject("unraisablehook", hook.get()) == 0,
                      "cannot install sys.unraisablehook");
}

MainResult EmbeddedPython::run_main(const std::string& path) {
  PyObject* main_module = PyImport_AddModule("__main__");  // borrowed
  run_python_or_throw(main_module != nullptr, "no __main__ module");
  PyObject* globals = PyModule_GetDict(main_module);  // borrowed
  Ref file_name(PyUnicode_DecodeFSDefault(path.c_str()));
  run_python_or_throw(file_name && PyDict_SetItemString(globals, "__file__", file_name.get()) == 0 &&
                          PyDict_SetItemString(globals, "__cached__", Py_None) == 0,
                      "cannot set __main__.__file__");

  // Compiling from the bytes keeps PEP 263 coding declarations working and names the file in
  // tracebacks, exactly as `python path` would.
  const std::string source = read_file(path);
  Ref code(Py_CompileStringExFlags(source.c_str(), path.c_str(), Py_file_input, nullptr, -1));
  Ref result(code ? PyEval_EvalCode(code.get(), globals, globals) : nullptr);
  MainResult outcome;
  if (result) return outcome;

  Ref exception = python::take_raised_exception();
  if (!exception) return outcome;
  if (PyErr_GivenExceptionMatches(exception.get(), PyExc_SystemExit)) {
    outcome.system_exit_code = exit_code_of(exception.get());
    return outcome;
  }
  outcome.exception = ExceptionRecord{python::type_name_of(reinterpret_cast<PyObject*>(Py_TYPE(exception.get()))),
                                      python::formatted_traceback(exception.get())};
  python::restore_raised_exception(std::move(exception));
  PyErr_PrintEx(0);  // through sys.excepthook, like the interpreter's own top level
  return outcome;
}

std::optional<std::string> EmbeddedPython::why_not_importable(const std::string& module) {
  Ref util(PyImport_ImportModule("importlib.util"));
  Ref spec(util ? PyObject_CallMethod(util.get(), "find_spec", "s", module.c_str()) : nullptr);
  if (!spec) return "module '" + module + "' cannot be found: " + python::describe_and_clear_error();
  if (spec.get() == Py_None) return "no module named '" + module + "'";
  return std::nullopt;
}

std::optional<std::string> EmbeddedPython::select_implementation(const std::string& package_folder,
                                                                const std::string& implementation,
                                                                const std::vector<std::string>& capabilities) {
  PyObject* path = PySys_GetObject("path");  // borrowed
  Ref folder(PyUnicode_FromString(package_folder.c_str()));
  run_python_or_throw(path != nullptr && folder != nullptr && PyList_Append(path, folder.get()) == 0,
                      "cannot put the implementations on sys.path");
  Ref package(PyImport_ImportModule("gilsan_impl"));
  run_python_or_throw(package != nullptr, "cannot import gilsan_impl from " + package_folder);
  Ref wanted(PyList_New(0));
  run_python_or_throw(wanted != nullptr, "cannot list the capabilities");
  for (const std::string& capability : capabilities) {
    Ref name(PyUnicode_FromString(capability.c_str()));
    run_python_or_throw(name != nullptr && PyList_Append(wanted.get(), name.get()) == 0, "cannot list the capabilities");
  }
  Ref reason(PyObject_CallMethod(package.get(), "select", "sO", implementation.c_str(), wanted.get()));
  run_python_or_throw(reason != nullptr, "gilsan_impl.select(" + implementation + ")");
  if (reason.get() == Py_None) return std::nullopt;
  return python::str_of(reason.get());
}

EmbeddedPython::ImplementationDescription EmbeddedPython::describe_implementation() {
  Ref package(PyImport_ImportModule("gilsan_impl"));
  Ref description(package ? PyObject_CallMethod(package.get(), "describe", nullptr) : nullptr);
  run_python_or_throw(description != nullptr && PyDict_Check(description.get()), "gilsan_impl.describe()");
  PyObject* version = PyDict_GetItemString(description.get(), "version");    // borrowed
  PyObject* platform = PyDict_GetItemString(description.get(), "platform");  // borrowed
  run_python_or_throw(version != nullptr && platform != nullptr, "gilsan_impl.describe() lacks version or platform");
  return {python::str_of(version), python::str_of(platform)};
}

std::optional<std::string> EmbeddedPython::gilsan_driver_description() {
  PyObject* modules = PyImport_GetModuleDict();  // borrowed
  PyObject* gilsan = modules != nullptr ? PyDict_GetItemString(modules, "gilsan") : nullptr;  // borrowed
  if (gilsan == nullptr || !PyObject_HasAttrString(gilsan, "driver")) return std::nullopt;
  Ref description(PyObject_CallMethod(gilsan, "driver", nullptr));
  if (!description) return "gilsan.driver() raised " + python::describe_and_clear_error();
  return python::str_of(description.get());
}

namespace {

// What the signal handlers below need, set before either is installed.
volatile sig_atomic_t g_python_stacks_fd = -1;
void (*g_faulthandler_dump)(int) = nullptr;

// Tells the parent the dump is whole (board::kPythonStacksEnd): one write, async-signal-safe.
void mark_python_stacks_end(int) {
  const int saved_errno = errno;
  const int fd = g_python_stacks_fd;
  if (fd >= 0) {
    const ssize_t written = ::write(fd, board::kPythonStacksEnd.data(), board::kPythonStacksEnd.size());
    (void)written;  // nothing to do about a full or closed pipe in a signal handler
  }
  errno = saved_errno;
}

// faulthandler's own handler, then the end line, with faulthandler's flags (SA_RESTART: an interrupted
// system call of the scenario goes on as it would without us).
void dump_then_mark_end(int signal_number) {
  g_faulthandler_dump(signal_number);
  mark_python_stacks_end(signal_number);
}

}  // namespace

void EmbeddedPython::dump_python_stacks_to(int fd, int signal_number) {
  g_python_stacks_fd = fd;
  // faulthandler puts back the signal's previous action when the interpreter finalizes. A request the
  // watchdog sends after that (a hang while the runner drains host functions or exits) must then find
  // a handler that does not end the process with the watchdog's own signal (the default action would,
  // hiding what it was looking at): this one only says "no Python stacks, and that is all". A handler,
  // not SIG_IGN: an ignored signal would stay ignored in the processes a scenario execs.
  struct sigaction quiet {};
  quiet.sa_handler = mark_python_stacks_end;
  quiet.sa_flags = SA_RESTART;
  sigemptyset(&quiet.sa_mask);
  if (::sigaction(signal_number, &quiet, nullptr) != 0)
    throw PythonError("cannot install a handler for signal " + std::to_string(signal_number));
  Ref faulthandler(PyImport_ImportModule("faulthandler"));
  run_python_or_throw(faulthandler != nullptr, "cannot import faulthandler");
  // register(signum, file=, all_threads=, chain=) by keyword, as docs/watchdog.md spells the call.
  // Not chain=True to get the end line written: faulthandler then drops SA_RESTART.
  Ref register_function(PyObject_GetAttrString(faulthandler.get(), "register"));
  run_python_or_throw(register_function != nullptr, "cannot use faulthandler");
  Ref register_args(Py_BuildValue("(i)", signal_number));
  Ref register_kwargs(Py_BuildValue("{s:i,s:O,s:O}", "file", fd, "all_threads", Py_True, "chain", Py_False));
  Ref done(register_args && register_kwargs ? PyObject_Call(register_function.get(), register_args.get(), register_kwargs.get())
                                            : nullptr);
  run_python_or_throw(done != nullptr, "faulthandler.register");
  // faulthandler's handler, wrapped so that the end line follows each dump. Left as it is when it is not
  // a plain handler: the parent then waits for silence, as for any child that writes no end line.
  struct sigaction registered {};
  if (::sigaction(signal_number, nullptr, &registered) == 0 && (registered.sa_flags & SA_SIGINFO) == 0 &&
      registered.sa_handler != SIG_DFL && registered.sa_handler != SIG_IGN &&
      registered.sa_handler != mark_python_stacks_end) {
    g_faulthandler_dump = registered.sa_handler;
    struct sigaction wrapped = registered;
    wrapped.sa_handler = dump_then_mark_end;
    ::sigaction(signal_number, &wrapped, nullptr);
  }
}

int EmbeddedPython::finalize() {
  finalized_ = true;
  return Py_FinalizeEx();
}

}  // namespace gilsan
