#include "checkers/inject/inject_runtime.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "checkers/sources/profile_behaviour.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

Options injected_default_options() {
  Options defaults;
  // Off by default here: programs no one wrote for gilsan sync with the GIL held all the time, and
  // only a pending Python callback makes that a deadlock (lock-order-cycle reports that case).
  defaults.set_enabled(Checker::gil_held_blocking_call, false);
  defaults.report_path = environment("GILSAN_REPORT");
  return defaults;
}

std::string start_inject_runtime(InjectRuntime& runtime, const InjectedDriver& driver) {
  try {
    const std::shared_ptr<const DriverProfile> profile = load_profile_for_sources();
    SanitizerConfig config = config_from_options(environment("GILSAN_OPTIONS"), injected_default_options(),
                                                 behaviour_from_profile(profile), std::cerr);
    config.halt = [](int exit_code) {
      std::fflush(nullptr);
      ::_exit(exit_code);
    };
    DriverBehaviour behaviour = behaviour_from_profile(profile);
    const bool report_enqueued = config.options.is_enabled(Checker::gil_held_blocking_call);
    runtime.sanitizer = std::make_unique<Sanitizer>(std::move(config));

    InjectOptions options;
    if (driver.get_error_name != nullptr) {
      options.error_names = ErrorNames([&driver](int code) -> const char* {
        const char* name = nullptr;
        return driver.get_error_name(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name : nullptr;
      });
    }
    options.report_enqueued = report_enqueued;
    options.holds_gil = [&runtime] { return runtime.gil_probe.holds_gil(); };
    options.write_board = !environment(board::kBoardEnvironmentVariable).empty() && board::attach();
    options.announce = [](std::string_view line) { std::cerr << line << std::endl; };
    runtime.handler = std::make_unique<InjectHandler>(*runtime.sanitizer, driver, std::move(behaviour),
                                                      std::move(options));
    return "";
  } catch (const std::exception& error) {
    runtime.handler.reset();
    runtime.sanitizer.reset();
    return error.what();
  }
}

int finish_inject_runtime(InjectRuntime& runtime) {
  if (!runtime.sanitizer) return 0;
  return runtime.sanitizer->finish().exit_code;
}

}  // namespace gilsan::checkers::inject
