#include "checkers/inject/observed_front_end.h"

#include <dlfcn.h>

#include <string_view>
#include <utility>

#include "checkers/inject/python_lock_exports.h"

namespace gilsan::checkers::inject {
namespace {

InjectRuntime& runtime_of(void* user) { return *static_cast<InjectRuntime*>(user); }

// The driver calls InitializeInjection from inside cuInit, so the observer sees that cuInit's exit
// without its entry: it is left out rather than counted as an event that does not fit the model.
thread_local bool t_saw_cuinit_enter = false;

bool is_cuinit(const GilsanSimApiCall& call) { return std::string_view(call.entry_point) == "cuInit"; }

// The source's hooks, with the Python set-up in front of each driver call.
void api_enter(void* user, const GilsanSimApiCall* call) {
  InjectRuntime& runtime = runtime_of(user);
  runtime.python->on_driver_call(runtime.gil_probe.holds_gil());
  if (is_cuinit(*call)) t_saw_cuinit_enter = true;
  runtime.source->api_enter(*call);
}
void api_exit(void* user, const GilsanSimApiCall* call, CUresult result) {
  if (is_cuinit(*call) && !std::exchange(t_saw_cuinit_enter, false)) return;
  runtime_of(user).source->api_exit(*call, result);
}
void host_function_begin(void* user, const GilsanSimHostFunction* host_function) {
  runtime_of(user).source->host_function_begin(*host_function);
}
void host_function_end(void* user, const GilsanSimHostFunction* host_function) {
  runtime_of(user).source->host_function_end(*host_function);
}
void host_function_enqueued(void* user, const GilsanSimHostFunction* host_function) {
  runtime_of(user).source->host_function_enqueued(*host_function);
}

}  // namespace

SetObserver loaded_driver_observer_setter() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return nullptr;
  const SetObserver set_observer = driver_observer_setter(driver);
  ::dlclose(driver);  // drops only the reference RTLD_NOLOAD added; the driver stays loaded
  return set_observer;
}

std::string start_observed_front_end(InjectRuntime& runtime, SetObserver set_observer) {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  SimSourceOptions options;
  if (driver != nullptr) {
    options.error_names = driver_error_names(driver);
    ::dlclose(driver);
  }
  options.holds_gil = [&runtime] { return runtime.gil_probe.holds_gil(); };
  options.blocks_while_host_function_runs = runtime.behaviour.blocks_while_host_function_runs;
  runtime.source = std::make_unique<SimSource>(*runtime.sanitizer, std::move(options));
  runtime.python = std::make_unique<PythonProcessSetup>([&runtime] { runtime.sanitizer->interpreter_finished(); });
  set_python_lock_sanitizer(runtime.sanitizer.get());
  runtime.observer = GilsanSimObserver{GILSAN_SIM_OBSERVER_ABI, &runtime, api_enter,         api_exit,
                                       host_function_begin,     host_function_end, host_function_enqueued};
  return install_observer(set_observer, &runtime.observer, "libcuda.so.1");
}

}  // namespace gilsan::checkers::inject
