// The injected sanitizer of one process: the Sanitizer configured from the environment and the
// handler that feeds it. Everything the CUPTI adapter needs besides CUPTI itself.
//
// Environment: GILSAN_OPTIONS (docs/sanitizer.md, "Options"; gil_held_blocking_call starts off in
// this mode), GILSAN_PROFILE (the driver profile; default the shipped one), GILSAN_BOARD (set by
// `gilsan run`: also write the board), GILSAN_REPORT (the JSON report, when GILSAN_OPTIONS names no
// report_path).
#pragma once

#include <memory>
#include <string>

#include "checkers/core/sanitizer.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/sources/python_gil_probe.h"

namespace gilsan::checkers::inject {

struct InjectRuntime {
  std::unique_ptr<Sanitizer> sanitizer;
  PythonGilProbe gil_probe;
  std::unique_ptr<InjectHandler> handler;
  std::unique_ptr<OwnTimeStats> stats;  // GILSAN_OPTIONS stats=1; printed by finish_inject_runtime
};

// The defaults of the injected mode, before GILSAN_OPTIONS.
Options injected_default_options();

// The injected mode's stacks (SanitizerConfig::capture_stack / symbolize_stack): the calling
// thread's native stack, captured only for a new edge or report and named when a report is made,
// less the innermost frames of the sanitizer, CUPTI and the driver.
Stack capture_injected_stack(ThreadId thread);
void symbolize_injected_stack(Stack& stack);

// Builds the runtime from the environment, with `driver` for the handler's own calls. Returns ""
// or one line saying why the sanitizer is off (a bad GILSAN_OPTIONS, an unreadable profile).
std::string start_inject_runtime(InjectRuntime& runtime, const InjectedDriver& driver);

// At process exit: finish() (the last findings, the summary on every sink), the own-time line on
// stderr with stats=1, then the exit-code
// policy: a process that would exit 0 after unsuppressed reports exits with options.exitcode.
int finish_inject_runtime(InjectRuntime& runtime);

}  // namespace gilsan::checkers::inject
