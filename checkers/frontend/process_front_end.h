// The sanitizer of one process, as each front end makes it: the scenario child of `gilsan run`
// (harness/child/scenario_sanitizer.cpp) and the injected library (checkers/inject/inject_runtime.cpp).
// Both read GILSAN_OPTIONS over their own defaults, write the text report to GILSAN_SANITIZER_TEXT or
// stderr, read the driver profile once, end the process at once when a report halts it, and find
// gilsan's driver observer and the driver's CUresult names in the libcuda.so.1 they run on; what
// differs between them is in FrontEndSettings.
#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "checkers/core/sanitizer.h"
#include "checkers/sources/error_names.h"
#include "harness/driverhooks/driver_observer.h"

namespace gilsan::checkers {

struct FrontEndSettings {
  Options defaults;  // before GILSAN_OPTIONS
  // Wins over a report_path in GILSAN_OPTIONS (the scenario child's parent reads that file); "": the
  // options (or the defaults) say.
  std::string forced_report_path;
  std::function<Stack(ThreadId)> capture_stack;
  std::function<std::shared_ptr<const Stack>(ThreadId)> capture_enqueue_stack;
  std::function<void(Stack&)> symbolize_stack;
};

struct ProcessFrontEnd {
  std::ofstream text_file;  // GILSAN_SANITIZER_TEXT, when set
  std::unique_ptr<Sanitizer> sanitizer;
  DriverBehaviour behaviour;  // what the profile (GILSAN_PROFILE or the shipped one, read once) says
  Options options;            // as GILSAN_OPTIONS left them over the defaults
};

// Makes `front`'s Sanitizer from the environment and `settings`, fed by the native-lock interposer
// when it is in the process (checkers/sources/native_lock_source.h). Throws std::runtime_error with one
// line (a bad GILSAN_OPTIONS or suppressions file, an unreadable profile, an unwritable text file).
void start_front_end(ProcessFrontEnd& front, FrontEndSettings settings);

// What a halting report does in every front end: flush and end the process at once. The first report
// may come from inside a driver call with the driver's own locks held, so no atexit handler may run;
// exit_group rather than _exit, whose ThreadSanitizer interceptor runs a finalization that can wait
// for those locks.
[[noreturn]] void halt_process(int exit_code);

// The driver's CUresult names (its cuGetErrorName, asked now for every code); empty without one.
ErrorNames driver_error_names(void* driver);
using GetErrorName = CUresult (*)(CUresult, const char**);
ErrorNames driver_error_names(GetErrorName get_error_name);

}  // namespace gilsan::checkers
