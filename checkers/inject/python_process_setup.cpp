#include "checkers/inject/python_process_setup.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "checkers/sources/python_lock_tracing_source.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {
namespace {

// The same signal the scenario child uses for faulthandler's dumps (docs/watchdog.md).
int python_stack_signal() { return SIGRTMIN + 7; }

// Py_AtExit takes a plain function: the one front end of the process keeps its callback here.
std::function<void()>* g_interpreter_finished = nullptr;

void call_interpreter_finished() {
  if (g_interpreter_finished != nullptr) (*g_interpreter_finished)();
}

// The write end of the watchdog's pipe, when the runner gave one that is still open.
int python_stack_fd() {
  const char* text = std::getenv("GILSAN_PYTHON_STACK_FD");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  if (*end != '\0' || fd < 0 || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
  return static_cast<int>(fd);
}

// threading.Lock and RLock (and the locks of Condition and queue) report to this library's five
// gilsan_lock_* functions (python_lock_exports.cpp); locks the program made before now stay untraced.
template <typename RunString>
void install_lock_tracing(RunString run_string) {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&call_interpreter_finished), &self) == 0 || self.dli_fname == nullptr) return;
  if (run_string(python_lock_tracing_install_code(self.dli_fname).c_str()) != 0)
    std::fprintf(stderr, "gilsan: injected: Python locks are not traced (the install code failed)\n");
}

}  // namespace

PythonProcessSetup::PythonProcessSetup(std::function<void()> interpreter_finished)
    : interpreter_finished_(std::move(interpreter_finished)) {}

void PythonProcessSetup::on_driver_call(std::optional<bool> holds_gil) {
  if (!holds_gil || started_.load(std::memory_order_acquire) || started_.exchange(true)) return;
  if (*holds_gil) {
    set_up();
    return;
  }
  // No thread state or GIL needed to schedule it; the main thread runs it with the GIL.
  using AddPendingCall = int (*)(int (*)(void*), void*);
  auto add_pending_call = reinterpret_cast<AddPendingCall>(::dlsym(RTLD_DEFAULT, "Py_AddPendingCall"));
  if (add_pending_call == nullptr || add_pending_call(&PythonProcessSetup::run_pending, this) != 0)
    started_.store(false);  // the queue was full: the next driver call tries again
}

int PythonProcessSetup::run_pending(void* self) {
  static_cast<PythonProcessSetup*>(self)->set_up();
  return 0;
}

void PythonProcessSetup::set_up() {
  using AtExit = int (*)(void (*)());
  using RunString = int (*)(const char*);
  auto at_exit = reinterpret_cast<AtExit>(::dlsym(RTLD_DEFAULT, "Py_AtExit"));
  auto run_string = reinterpret_cast<RunString>(::dlsym(RTLD_DEFAULT, "PyRun_SimpleString"));
  if (at_exit != nullptr && g_interpreter_finished == nullptr) {
    g_interpreter_finished = new std::function<void()>(interpreter_finished_);  // never freed: runs at exit
    at_exit(&call_interpreter_finished);
  }
  if (run_string != nullptr) install_lock_tracing(run_string);
  const int fd = python_stack_fd();
  if (fd < 0 || run_string == nullptr || !board::enabled()) return;
  const std::string code = "import faulthandler\nfaulthandler.register(" + std::to_string(python_stack_signal()) +
                           ", file=" + std::to_string(fd) + ", all_threads=True, chain=False)\n";
  if (run_string(code.c_str()) == 0) board::announce_python_stack_signal(python_stack_signal());
}

}  // namespace gilsan::checkers::inject
