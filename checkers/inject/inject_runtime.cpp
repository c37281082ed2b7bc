#include "checkers/inject/inject_runtime.h"

#include <cstdlib>
#include <iostream>

#include "checkers/inject/runtime_error_names.h"
#include "checkers/sources/native_stack.h"
#include "checkers/sources/python_stack_reader.h"
#include "checkers/sources/thread_identity.h"
#include "harness/board/board_writer.h"

namespace gilsan::checkers::inject {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// Captured deep: on the H200 the CUPTI callback runs under a dozen or more libcupti and libcuda
// frames, which symbolize_injected_stack cuts; 16 frames left only one libcuda frame after the cut.
constexpr std::size_t kStackDepth = 64;
// What a report shows of the application's frames, after the cut.
constexpr std::size_t kShownFrames = 24;

}  // namespace

Options injected_default_options() {
  Options defaults;
  // Off by default here: programs no one wrote for gilsan sync with the GIL held all the time, and
  // only a pending Python callback makes that a deadlock (lock-order-cycle reports that case). A
  // program `gilsan run` started (GILSAN_SANITIZE=1) is checked as a scenario is: everything on.
  if (environment("GILSAN_SANITIZE") != "1") defaults.set_enabled(Checker::gil_held_blocking_call, false);
  defaults.report_path = environment("GILSAN_REPORT");
  return defaults;
}

Stack capture_injected_stack(ThreadId thread) {
  if (thread != current_thread_id()) return {};
  // A Python thread's own frames say more than the interpreter's native ones (read as faulthandler
  // reads them, GIL or not); elsewhere backtrace alone (no names): a few hundred nanoseconds, and only
  // for what the core keeps.
  if (Stack python = read_python_stack_without_gil(static_cast<int>(kShownFrames)); !python.empty()) return python;
  return capture_native_stack(kStackDepth);
}

void symbolize_injected_stack(Stack& stack) {
  static const std::vector<std::string_view> own_frames = {"gilsan::checkers::", "std::", "(libgilsan_inject.so)",
                                                           "(libcupti.so", "(libcuda.so"};
  symbolize_native_stack(stack, own_frames);
  if (stack.size() > kShownFrames) stack.resize(kShownFrames);
}

std::string start_injected_sanitizer(InjectRuntime& runtime) {
  try {
    prepare_native_stack_capture();
    FrontEndSettings settings;
    settings.defaults = injected_default_options();
    settings.capture_stack = capture_injected_stack;
    settings.symbolize_stack = symbolize_injected_stack;
    start_front_end(runtime, std::move(settings));
    if (runtime.options.stats) runtime.stats = std::make_unique<OwnTimeStats>();
    return "";
  } catch (const std::exception& error) {
    return error.what();
  }
}

std::string start_inject_handler(InjectRuntime& runtime, const InjectedDriver& driver) {
  try {
    DriverBehaviour behaviour = runtime.behaviour;  // the profile as the front end read it
    InjectOptions options;
    options.error_names = driver_error_names(driver.get_error_name);
    // host_function_enqueued only feeds gil-held-blocking-call's list of pending host functions.
    options.report_enqueued =
        environment("GILSAN_SANITIZE") == "1" || runtime.options.is_enabled(Checker::gil_held_blocking_call);
    options.runtime_error_name = runtime_error_name;
    options.holds_gil = [&runtime] { return runtime.gil_probe.holds_gil(); };
    options.write_board = !environment(board::kBoardEnvironmentVariable).empty() && board::attach();
    options.announce = [](std::string_view line) { std::cerr << line << std::endl; };
    options.stats = runtime.stats.get();
    runtime.handler = std::make_unique<InjectHandler>(*runtime.sanitizer, driver, std::move(behaviour),
                                                      std::move(options));
    return "";
  } catch (const std::exception& error) {
    runtime.handler.reset();
    return error.what();
  }
}

std::string start_inject_runtime(InjectRuntime& runtime, const InjectedDriver& driver) {
  if (std::string error = start_injected_sanitizer(runtime); !error.empty()) return error;
  if (std::string error = start_inject_handler(runtime, driver); !error.empty()) {
    runtime.sanitizer.reset();
    return error;
  }
  return "";
}

bool attach_to_the_watchdog() {
  if (environment(board::kBoardEnvironmentVariable).empty() || !board::attach()) return false;
  board::install_stack_sampler();
  board::install_crash_reporter();
  return true;
}

int finish_inject_runtime(InjectRuntime& runtime) {
  if (!runtime.sanitizer) return 0;
  const int exit_code = runtime.sanitizer->finish().exit_code;
  if (runtime.stats) std::cerr << runtime.stats->summary() << std::endl;
  return exit_code;
}

}  // namespace gilsan::checkers::inject
