#include "checkers/inject/observed_front_end.h"

#include "checkers/inject/python_lock_exports.h"
#include "checkers/sources/profile_behaviour.h"

#include <dlfcn.h>

#include <exception>

#include <string_view>
#include <utility>

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

// cuGetErrorName of the loaded driver, asked now, before any hook can run.
ErrorNames error_names_of(void* driver) {
  using GetErrorName = CUresult (*)(CUresult, const char**);
  auto get_error_name = reinterpret_cast<GetErrorName>(::dlsym(driver, "cuGetErrorName"));
  if (get_error_name == nullptr) return {};
  return ErrorNames([get_error_name](int code) -> const char* {
    const char* name = nullptr;
    return get_error_name(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name : nullptr;
  });
}

}  // namespace

SetObserver loaded_driver_observer_setter() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return nullptr;
  auto set_observer = reinterpret_cast<SetObserver>(::dlsym(driver, "gilsanSimSetObserver"));
  ::dlclose(driver);  // drops only the reference RTLD_NOLOAD added; the driver stays loaded
  return set_observer;
}

std::string start_observed_front_end(InjectRuntime& runtime, SetObserver set_observer) {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  SimSourceOptions options;
  if (driver != nullptr) {
    options.error_names = error_names_of(driver);
    ::dlclose(driver);
  }
  options.holds_gil = [&runtime] { return runtime.gil_probe.holds_gil(); };
  try {
    options.blocks_while_host_function_runs =
        behaviour_from_profile(load_profile_for_sources()).blocks_while_host_function_runs;
  } catch (const std::exception& error) {
    return std::string("the driver profile: ") + error.what();
  }
  runtime.source = std::make_unique<SimSource>(*runtime.sanitizer, std::move(options));
  runtime.python = std::make_unique<PythonProcessSetup>([&runtime] { runtime.sanitizer->interpreter_finished(); });
  set_python_lock_sanitizer(runtime.sanitizer.get());
  runtime.observer = GilsanSimObserver{GILSAN_SIM_OBSERVER_ABI, &runtime, api_enter,         api_exit,
                                       host_function_begin,     host_function_end, host_function_enqueued};
  if (set_observer(&runtime.observer) != CUDA_SUCCESS)
    return "the driver refused the observer (observer ABI " + std::to_string(GILSAN_SIM_OBSERVER_ABI) + ")";
  return "";
}

}  // namespace gilsan::checkers::inject
