#include "checkers/frontend/process_front_end.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "checkers/sources/native_lock_source.h"
#include "checkers/sources/profile_behaviour.h"

namespace gilsan::checkers {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

void start_front_end(ProcessFrontEnd& front, FrontEndSettings settings) {
  std::ostream* text_out = &std::cerr;
  if (const std::string text_path = environment("GILSAN_SANITIZER_TEXT"); !text_path.empty()) {
    // Made by us, for the user only, before the stream opens it (an ofstream would leave it to the umask).
    const int fd = ::open(text_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) ::close(fd);
    front.text_file.open(text_path);
    if (!front.text_file) throw std::runtime_error("GILSAN_SANITIZER_TEXT=" + text_path + ": cannot be written");
    text_out = &front.text_file;
  }
  std::string options = environment("GILSAN_OPTIONS");
  if (!settings.forced_report_path.empty()) {
    options += (options.empty() || options.ends_with(':') ? "" : ":") + ("report_path=" + settings.forced_report_path);
  }
  try {
    front.behaviour = behaviour_from_profile(load_profile_for_sources());
    SanitizerConfig config = config_from_options(options, settings.defaults, front.behaviour, *text_out);
    front.options = config.options;
    config.halt = halt_process;
    config.capture_stack = std::move(settings.capture_stack);
    config.capture_enqueue_stack = std::move(settings.capture_enqueue_stack);
    config.symbolize_stack = std::move(settings.symbolize_stack);
    front.sanitizer = std::make_unique<Sanitizer>(std::move(config));
  } catch (const std::exception& error) {
    front.sanitizer.reset();
    throw std::runtime_error(error.what());
  }
  // With the native-lock interposer preloaded (gilsan run's default), the program's own native locks
  // join the model.
  attach_native_lock_source(*front.sanitizer);
}

void halt_process(int exit_code) {
  std::fflush(nullptr);
  ::syscall(SYS_exit_group, exit_code);
  std::abort();  // not reached
}

ErrorNames driver_error_names(void* driver) {
  return driver_error_names(driver != nullptr ? reinterpret_cast<GetErrorName>(::dlsym(driver, "cuGetErrorName"))
                                              : nullptr);
}

ErrorNames driver_error_names(GetErrorName get_error_name) {
  if (get_error_name == nullptr) return {};
  return ErrorNames([get_error_name](int code) -> const char* {
    const char* name = nullptr;
    return get_error_name(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name : nullptr;
  });
}

}  // namespace gilsan::checkers
